package dev.sluice.replica;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.ReplicaLoadTopic;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * One per {@code replica} node: registered with the receptionist under {@link #KEY} so the
 * controller finds it, spawns and stops replicas on request. A replica that fails is stopped (not
 * restarted here): the controller sees it terminate and replaces it.
 */
public final class NodeAgent extends AbstractBehavior<NodeAgent.Command> {

  public static final ServiceKey<Command> KEY = ServiceKey.create(Command.class, "sluice-node-agent");

  public sealed interface Command permits SpawnReplica, StopReplica, ReplicaTerminated {}

  /** Start a replica; it reports its states to {@code replyTo}. */
  public record SpawnReplica(ReplicaSpec spec, ActorRef<ReplicaStatusUpdate> replyTo)
      implements Command, ClusterMessage {
    public SpawnReplica {
      Objects.requireNonNull(spec, "spec");
      Objects.requireNonNull(replyTo, "replyTo");
    }
  }

  /**
   * Drain and stop a replica, cutting what is still open after {@code graceSeconds} (0: at once,
   * for an unhealthy one); unknown ids are ignored.
   */
  public record StopReplica(ReplicaId id, double graceSeconds)
      implements Command, ClusterMessage {}

  private record ReplicaTerminated(ReplicaId id)
      implements Command, org.apache.pekko.actor.NoSerializationVerificationNeeded {}

  private final ReplicaNodeSettings settings;
  private final Map<ReplicaId, ActorRef<ReplicaActor.Command>> replicas = new HashMap<>();
  private final ActorRef<Topic.Command<ReplicaLoad>> loads;
  private int spawned;

  private NodeAgent(ActorContext<Command> context, ReplicaNodeSettings settings) {
    super(context);
    this.settings = settings;
    this.loads = context.spawn(ReplicaLoadTopic.behavior(), "replica-load-topic");
    context.getSystem().receptionist().tell(Receptionist.register(KEY, context.getSelf()));
  }

  public static Behavior<Command> create(ReplicaNodeSettings settings) {
    return Behaviors.setup(context -> new NodeAgent(context, settings));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(SpawnReplica.class, this::onSpawn)
        .onMessage(StopReplica.class, this::onStop)
        .onMessage(ReplicaTerminated.class, this::onTerminated)
        .build();
  }

  private Behavior<Command> onSpawn(SpawnReplica spawn) {
    ReplicaId id = spawn.spec().id();
    if (replicas.containsKey(id)) {
      return this;
    }
    ActorRef<ReplicaActor.Command> replica = getContext().spawn(
        ReplicaActor.create(spawn.spec(), settings.rotatePorts(spawned++), spawn.replyTo(), loads), "replica-" + id.uniqueId());
    getContext().watchWith(replica, new ReplicaTerminated(id));
    replicas.put(id, replica);
    return this;
  }

  private Behavior<Command> onStop(StopReplica stop) {
    ActorRef<ReplicaActor.Command> replica = replicas.get(stop.id());
    if (replica != null) {
      replica.tell(new ReplicaActor.Drain(stop.graceSeconds()));
    }
    return this;
  }

  private Behavior<Command> onTerminated(ReplicaTerminated terminated) {
    replicas.remove(terminated.id());
    return this;
  }

}
