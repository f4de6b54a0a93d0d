package dev.sluice.replica;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.ReplicaLoads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * One per replica node: publishes its replicas' load reports on the load topic together
 * ({@link ReplicaLoads}). A replica reports here when its load changed or requests arrived
 * ({@link LoadReports}); the first report after a quiet interval goes out at once, later ones wait
 * for the end of the interval and go out as one batch, so the node sends at most one batch per
 * {@code load-report-interval}. Every {@code load-report-heartbeat} it sends the last load of
 * every replica it runs: a quiet node sends one message a heartbeat, not one per replica, and the
 * control node's router, controller and capacity queue each handle one message where they
 * handled one per replica. A replica that stops is forgotten.
 */
public final class NodeLoadReporter extends AbstractBehavior<NodeLoadReporter.Command> {

  public sealed interface Command permits Report, Flush, Heartbeat, Gone {}

  /** {@code replica}'s actor reports its current load (on its node: never serialized). */
  public record Report(ReplicaLoad load, ActorRef<?> replica)
      implements Command, NoSerializationVerificationNeeded {
    public Report {
      Objects.requireNonNull(load, "load");
      Objects.requireNonNull(replica, "replica");
    }
  }

  private enum Flush implements Command { INSTANCE }

  private enum Heartbeat implements Command { INSTANCE }

  private record Gone(ReplicaId replica) implements Command {}

  private final TimerScheduler<Command> timers;
  private final ActorRef<Topic.Command<ReplicaLoads>> topic;
  private final long intervalNanos;
  /** The last report of every replica of this node that is running. */
  private final Map<ReplicaId, ReplicaLoad> latest = new LinkedHashMap<>();
  /** Reports not yet published. */
  private final Map<ReplicaId, ReplicaLoad> pending = new LinkedHashMap<>();
  private long lastPublishedNanos;
  private boolean flushScheduled;

  private NodeLoadReporter(ActorContext<Command> context, TimerScheduler<Command> timers,
      ActorRef<Topic.Command<ReplicaLoads>> topic, Duration interval, Duration heartbeat) {
    super(context);
    this.timers = timers;
    this.topic = topic;
    this.intervalNanos = interval.toNanos();
    this.lastPublishedNanos = System.nanoTime() - intervalNanos;
    timers.startTimerWithFixedDelay(Heartbeat.INSTANCE, heartbeat);
  }

  /**
   * @param interval the shortest time between two batches ({@code load-report-interval})
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
        .onMessage(Report.class, this::onReport)
        .onMessageEquals(Flush.INSTANCE, this::onFlush)
        .onMessageEquals(Heartbeat.INSTANCE, this::onHeartbeat)
        .onMessage(Gone.class, this::onGone)
        .build();
  }

  private Behavior<Command> onReport(Report report) {
    ReplicaId id = report.load().replica();
    if (latest.put(id, report.load()) == null) {
      getContext().watchWith(report.replica(), new Gone(id));
    }
    pending.put(id, report.load());
    if (!flushScheduled) {
      long wait = lastPublishedNanos + intervalNanos - System.nanoTime();
      if (wait <= 0) {
        publish(pending);
      } else {
        flushScheduled = true;
        timers.startSingleTimer(Flush.INSTANCE, Duration.ofNanos(wait));
      }
    }
    return this;
  }

  private Behavior<Command> onFlush() {
    flushScheduled = false;
    publish(pending);
    return this;
  }

  private Behavior<Command> onHeartbeat() {
    publish(latest);
    return this;
  }

  private Behavior<Command> onGone(Gone gone) {
    latest.remove(gone.replica());
    pending.remove(gone.replica());
    return this;
  }

  private void publish(Map<ReplicaId, ReplicaLoad> loads) {
    if (!loads.isEmpty()) {
      topic.tell(Topic.publish(new ReplicaLoads(new ArrayList<>(loads.values()))));
      lastPublishedNanos = System.nanoTime();
    }
    pending.clear();
  }
}
