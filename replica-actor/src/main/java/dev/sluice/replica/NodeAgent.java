package dev.sluice.replica;

import dev.sluice.core.metrics.ActorMetrics;
import dev.sluice.core.metrics.CountingMailbox;
import dev.sluice.core.NodeTopics;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.serialization.ClusterMessage;
import dev.sluice.replica.engine.GpuPool;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * One per {@code replica} node: registered with the receptionist under {@link #KEY} so the
 * controller finds it, spawns and stops replicas on request. Replicas report their states here
 * and the agent passes them on to the current controller, remembering the last of each: a new
 * controller (after a failover) {@link Adopt adopts} them, learning every replica this node runs,
 * and hears their reports from then on. A replica that fails is stopped (not restarted here):
 * the controller sees it terminate and replaces it.
 */
public final class NodeAgent extends AbstractBehavior<NodeAgent.Command> {

  public static final ServiceKey<Command> KEY = ServiceKey.create(Command.class, "sluice-node-agent");

  public sealed interface Command permits SpawnReplica, StopReplica, Adopt, ReplicaTerminated,
      ReplicaReported {}

  /** Start a replica; it reports its states to {@code replyTo} (the controller). */
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

  /**
   * A (new) controller takes this node's replicas over: from now on their reports go to
   * {@code controller}; the answer lists every replica with its spec and last report.
   */
  public record Adopt(ActorRef<ReplicaStatusUpdate> controller, ActorRef<NodeReplicas> replyTo)
      implements Command, ClusterMessage {}

  /**
   * The replicas a node runs, for {@link Adopt}, and the GPUs it offers their servers
   * ({@link GpuPool#devices()}: the controller places replicas that need GPUs by them).
   */
  public record NodeReplicas(ActorRef<Command> node, List<RunningReplica> replicas,
      List<String> gpus) implements ClusterMessage {
    public NodeReplicas {
      replicas = List.copyOf(replicas);
      gpus = List.copyOf(gpus);
    }
  }

  /** One replica as its node knows it: what it was started with and what it last said. */
  public record RunningReplica(ReplicaSpec spec, ReplicaStatusUpdate last)
      implements ClusterMessage {}

  private record ReplicaTerminated(ReplicaId id)
      implements Command, org.apache.pekko.actor.NoSerializationVerificationNeeded {}

  private record ReplicaReported(ReplicaStatusUpdate update)
      implements Command, org.apache.pekko.actor.NoSerializationVerificationNeeded {}

  /** A replica of this node: its spec, its actor, and its last report (until the first: none). */
  private static final class Entry {
    final ReplicaSpec spec;
    final ActorRef<ReplicaActor.Command> actor;
    Optional<ReplicaStatusUpdate> last = Optional.empty();

    Entry(ReplicaSpec spec, ActorRef<ReplicaActor.Command> actor) {
      this.spec = spec;
      this.actor = actor;
    }
  }

  private final ReplicaNodeSettings settings;
  private final Map<ReplicaId, Entry> replicas = new LinkedHashMap<>();
  private final ActorRef<NodeLoadReporter.Command> loads;
  private final ActorRef<ReplicaStatusUpdate> reports;
  private Optional<ActorRef<ReplicaStatusUpdate>> controller = Optional.empty();
  private int spawned;

  private NodeAgent(ActorContext<Command> context, ReplicaNodeSettings settings) {
    super(context);
    this.settings = settings;
    this.loads = context.spawn(ActorMetrics.instrument("load-reporter",
            NodeLoadReporter.create(NodeTopics.get(context.getSystem()).replicaLoads(),
                settings.loadReportInterval(), settings.loadReportHeartbeat())),
        "load-reporter", CountingMailbox.selector("load-reporter"));
    this.reports = context.messageAdapter(ReplicaStatusUpdate.class, ReplicaReported::new);
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
        .onMessage(Adopt.class, this::onAdopt)
        .onMessage(ReplicaReported.class, this::onReported)
        .onMessage(ReplicaTerminated.class, this::onTerminated)
        .build();
  }

  private Behavior<Command> onSpawn(SpawnReplica spawn) {
    controller = Optional.of(spawn.replyTo());
    ReplicaId id = spawn.spec().id();
    if (replicas.containsKey(id)) {
      return this;
    }
    ActorRef<ReplicaActor.Command> replica = getContext().spawn(
        ActorMetrics.instrument("replica",
            ReplicaActor.create(spawn.spec(), settings.rotatePorts(spawned++), reports, loads)),
        "replica-" + id.uniqueId(), CountingMailbox.selector("replica"));
    getContext().watchWith(replica, new ReplicaTerminated(id));
    replicas.put(id, new Entry(spawn.spec(), replica));
    return this;
  }

  private Behavior<Command> onStop(StopReplica stop) {
    Entry entry = replicas.get(stop.id());
    if (entry != null) {
      entry.actor.tell(new ReplicaActor.Drain(stop.graceSeconds()));
    }
    return this;
  }

  private Behavior<Command> onAdopt(Adopt adopt) {
    controller = Optional.of(adopt.controller());
    List<RunningReplica> running = new ArrayList<>();
    for (Entry entry : replicas.values()) {
      entry.last.ifPresent(last -> running.add(new RunningReplica(entry.spec, last)));
    }
    adopt.replyTo().tell(new NodeReplicas(getContext().getSelf(), running,
        GpuPool.get(getContext().getSystem()).devices()));
    getContext().getLog().info("Node agent: a controller adopted this node's {} replica(s)",
        running.size());
    return this;
  }

  private Behavior<Command> onReported(ReplicaReported reported) {
    Entry entry = replicas.get(reported.update().info().id());
    if (entry != null) {
      entry.last = Optional.of(reported.update());
    }
    controller.ifPresent(ref -> ref.tell(reported.update()));
    return this;
  }

  private Behavior<Command> onTerminated(ReplicaTerminated terminated) {
    replicas.remove(terminated.id());
    return this;
  }
}
