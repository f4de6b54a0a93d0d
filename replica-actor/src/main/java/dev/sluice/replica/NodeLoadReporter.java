package dev.sluice.replica;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.ReplicaLoads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.pubsub.Topic;

/**
 * One per replica node: looks at the load of every replica it runs once per
 * {@code load-report-interval}, on one timer, and publishes those that are due (their load
 * changed, or requests were admitted since their last report) together on the load topic
 * ({@link ReplicaLoads}): at most one message per interval for the whole node. Every
 * {@code load-report-heartbeat} it sends the last load of every replica again: a quiet node
 * sends one message a heartbeat, not one per replica, and the control node's router, controller
 * and capacity queue each handle one message where they handled one per replica. One timer for
 * the node, not one per replica: 200 idle replicas woke the node's dispatcher over a thousand
 * times a second with their own. A replica that stops is forgotten; a node with none does not
 * wake.
 */
public final class NodeLoadReporter extends AbstractBehavior<NodeLoadReporter.Command> {

  public sealed interface Command permits Register, Sample, Heartbeat, Gone {}

  /**
   * A replica's load as the reporter reads it, on the reporter's thread, once per interval; it
   * may be read after its replica stopped (until the reporter hears so), so it must be safe to
   * call then (and return null).
   */
  public interface LoadSource {
    /** The replica's load when it should be reported now, else null. */
    ReplicaLoad dueLoad();
  }

  /** {@code replica}'s actor is running: read its load from {@code source} until it stops. */
  public record Register(ReplicaId id, LoadSource source, ActorRef<?> replica)
      implements Command, NoSerializationVerificationNeeded {
    public Register {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(replica, "replica");
    }
  }

  private enum Sample implements Command { INSTANCE }

  private enum Heartbeat implements Command { INSTANCE }

  private record Gone(ReplicaId replica) implements Command {}

  private final TimerScheduler<Command> timers;
  private final ActorRef<Topic.Command<ReplicaLoads>> topic;
  private final Duration interval;
  private final Duration heartbeat;
  private final Map<ReplicaId, LoadSource> sources = new LinkedHashMap<>();
  /** The last report of every replica of this node that is running. */
  private final Map<ReplicaId, ReplicaLoad> latest = new LinkedHashMap<>();

  private NodeLoadReporter(ActorContext<Command> context, TimerScheduler<Command> timers,
      ActorRef<Topic.Command<ReplicaLoads>> topic, Duration interval, Duration heartbeat) {
    super(context);
    this.timers = timers;
    this.topic = topic;
    this.interval = interval;
    this.heartbeat = heartbeat;
  }

  /**
   * @param interval how often every replica's load is looked at ({@code load-report-interval})
   * @param heartbeat how often every replica's last load is sent again
   *     ({@code load-report-heartbeat})
   */
  public static Behavior<Command> create(ActorRef<Topic.Command<ReplicaLoads>> topic,
      Duration interval, Duration heartbeat) {
    return Behaviors.setup(context -> Behaviors.withTimers(
        timers -> new NodeLoadReporter(context, timers, topic, interval, heartbeat)));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Register.class, this::onRegister)
        .onMessageEquals(Sample.INSTANCE, this::onSample)
        .onMessageEquals(Heartbeat.INSTANCE, this::onHeartbeat)
        .onMessage(Gone.class, this::onGone)
        .build();
  }

  private Behavior<Command> onRegister(Register register) {
    if (sources.put(register.id(), register.source()) == null) {
      getContext().watchWith(register.replica(), new Gone(register.id()));
    }
    if (sources.size() == 1) {
      timers.startTimerWithFixedDelay(Sample.INSTANCE, interval);
      timers.startTimerWithFixedDelay(Heartbeat.INSTANCE, heartbeat);
    }
    // A replica that just started is known at once, not at the next tick.
    ReplicaLoad load = register.source().dueLoad();
    if (load != null) {
      latest.put(register.id(), load);
      publish(List.of(load));
    }
    return this;
  }

  private Behavior<Command> onSample() {
    List<ReplicaLoad> due = new ArrayList<>();
    sources.forEach((id, source) -> {
      ReplicaLoad load = source.dueLoad();
      if (load != null) {
        latest.put(id, load);
        due.add(load);
      }
    });
    publish(due);
    return this;
  }

  private Behavior<Command> onHeartbeat() {
    publish(new ArrayList<>(latest.values()));
    return this;
  }

  private Behavior<Command> onGone(Gone gone) {
    sources.remove(gone.replica());
    latest.remove(gone.replica());
    if (sources.isEmpty()) {
      timers.cancelAll();
    }
    return this;
  }

  private void publish(List<ReplicaLoad> loads) {
    if (!loads.isEmpty()) {
      topic.tell(Topic.publish(new ReplicaLoads(loads)));
    }
  }
}
