package dev.sluice.capacity;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.NodeTopics;
import dev.sluice.core.ReplicaLoads;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.core.serialization.ClusterMessage;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
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
 * The CapacityQueue singleton (role {@code control}): counts in-flight work per replica and
 * hands out leases. {@link Acquire} gets the least-loaded replica with spare capacity, or waits
 * in FIFO order up to its timeout and then gets {@link AcquireResult.Exhausted}. {@link Release}
 * is idempotent. A reaper reclaims leases older than the TTL every half TTL. After a restart the
 * queue starts empty (it may over-admit briefly) and rebuilds in-flight counts from the replicas'
 * own load reports.
 */
public final class CapacityQueue extends AbstractBehavior<CapacityQueue.Command> {

  public sealed interface Command permits Acquire, Release, GetSnapshot, Restart, Stop,
      SetChanged, LoadReported, Reap, WaiterExpired, Resume, PublishGauges {}

  /**
   * Lease a slot of {@code deployment}, waiting up to {@code timeoutMillis}, on none of the
   * {@code excluded} replicas (ones that refused this request's connection).
   */
  public record Acquire(DeploymentId deployment, long timeoutMillis, List<String> excluded,
      ActorRef<AcquireResult> replyTo) implements Command, ClusterMessage {
    public Acquire {
      Objects.requireNonNull(deployment, "deployment");
      Objects.requireNonNull(replyTo, "replyTo");
      excluded = List.copyOf(excluded);
    }

    public Acquire(DeploymentId deployment, long timeoutMillis, ActorRef<AcquireResult> replyTo) {
      this(deployment, timeoutMillis, List.of(), replyTo);
    }
  }

  /** Give a lease back. A second release or an unknown id changes nothing. */
  public record Release(String leaseId) implements Command, ClusterMessage {
    public Release {
      Objects.requireNonNull(leaseId, "leaseId");
    }
  }

  /** What the queue holds now. */
  public record GetSnapshot(ActorRef<CapacitySnapshot> replyTo) implements Command, ClusterMessage {}

  /**
   * Stop answering for {@code downtimeMillis}, then start over empty, exactly as after a
   * failover (for operators recovering from a suspected leak, and for failover tests).
   */
  public record Restart(long downtimeMillis) implements Command, ClusterMessage {}

  /** The singleton's stop message. */
  public enum Stop implements Command, ClusterMessage { INSTANCE }

  private interface Internal extends NoSerializationVerificationNeeded {}

  private record SetChanged(ReplicaSet set) implements Command, Internal {}

  private record LoadReported(ReplicaLoads loads) implements Command, Internal {}

  private enum Reap implements Command, Internal { INSTANCE }

  private record WaiterExpired(long waiterId) implements Command, Internal {}

  private enum Resume implements Command, Internal { INSTANCE }

  private enum PublishGauges implements Command, Internal { INSTANCE }

  private static final Duration GAUGE_INTERVAL = Duration.ofSeconds(1);

  private record WaiterKey(long id) {}

  private final CapacityQueueSettings settings;
  private final TimerScheduler<Command> timers;
  private final CapacityMetrics metrics;
  private CapacityLedger<ActorRef<AcquireResult>> ledger;
  /** When each waiter started waiting (for the acquire-wait metric). */
  private final Map<Long, Long> waiting = new HashMap<>();

  private CapacityQueue(ActorContext<Command> context, TimerScheduler<Command> timers,
      CapacityQueueSettings settings, SluiceMetrics metrics) {
    super(context);
    this.settings = settings;
    this.timers = timers;
    this.metrics = new CapacityMetrics(metrics);
    this.ledger = newLedger();
    NodeTopics topics = NodeTopics.get(context.getSystem());
    topics.replicaSets().tell(Topic.subscribe(
        context.messageAdapter(ReplicaSet.class, SetChanged::new)));
    topics.replicaLoads().tell(Topic.subscribe(
        context.messageAdapter(ReplicaLoads.class, LoadReported::new)));
    startTimers();
    context.getLog().info("CapacityQueue singleton started on {} (lease TTL {})",
        context.getSystem().address(), settings.tokenTtl());
  }

  private void startTimers() {
    timers.startTimerWithFixedDelay(Reap.INSTANCE, settings.tokenTtl().dividedBy(2));
    timers.startTimerWithFixedDelay(PublishGauges.INSTANCE, GAUGE_INTERVAL);
  }

  public static Behavior<Command> create(CapacityQueueSettings settings) {
    return create(settings, SluiceMetrics.global());
  }

  public static Behavior<Command> create(CapacityQueueSettings settings, SluiceMetrics metrics) {
    return Behaviors.withTimers(timers -> Behaviors.setup(
        context -> new CapacityQueue(context, timers, settings, metrics)));
  }

  private static CapacityLedger<ActorRef<AcquireResult>> newLedger() {
    byte[] random = new byte[4];
    new SecureRandom().nextBytes(random);
    return new CapacityLedger<>(new SplittableRandom(), HexFormat.of().formatHex(random));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Acquire.class, this::onAcquire)
        .onMessage(Release.class, this::onRelease)
        .onMessage(GetSnapshot.class, this::onSnapshot)
        .onMessage(Restart.class, this::onRestart)
        .onMessage(SetChanged.class, this::onSetChanged)
        .onMessage(LoadReported.class, this::onLoad)
        .onMessage(Reap.class, m -> onReap())
        .onMessage(WaiterExpired.class, this::onWaiterExpired)
        .onMessage(Resume.class, m -> this)
        .onMessage(PublishGauges.class, m -> {
          metrics.update(ledger.snapshot());
          metrics.waiters(waiting.size());
          return this;
        })
        .onMessage(Stop.class, m -> Behaviors.stopped())
        .onSignal(org.apache.pekko.actor.typed.PostStop.class, s -> {
          metrics.forget();  // the singleton moved on: the next one reports in-flight counts
          return this;
        })
        .build();
  }

  private Behavior<Command> onAcquire(Acquire acquire) {
    long now = System.nanoTime();
    if (!ledger.hasWaiters(acquire.deployment())) {
      var lease = ledger.tryAcquire(acquire.deployment(), acquire.excluded(), now,
          System.currentTimeMillis());
      if (lease.isPresent()) {
        acquire.replyTo().tell(new AcquireResult.Granted(lease.get()));
        metrics.granted(0);
        return this;
      }
    }
    if (acquire.timeoutMillis() <= 0) {
      acquire.replyTo().tell(exhausted(acquire.deployment()));
      return this;
    }
    long id = ledger.enqueue(acquire.deployment(), acquire.excluded(), acquire.replyTo(),
        now + Duration.ofMillis(acquire.timeoutMillis()).toNanos());
    timers.startSingleTimer(new WaiterKey(id), new WaiterExpired(id),
        Duration.ofMillis(acquire.timeoutMillis()));
    waiting.put(id, now);
    return this;
  }

  private Behavior<Command> onRelease(Release release) {
    metrics.released();
    if (ledger.release(release.leaseId())) {
      wakeWaiters();
    }
    return this;
  }

  private Behavior<Command> onWaiterExpired(WaiterExpired expired) {
    waiting.remove(expired.waiterId());
    ledger.expireWaiter(expired.waiterId()).ifPresent(answer -> answer.tell(exhaustedNow()));
    return this;
  }

  private Behavior<Command> onSetChanged(SetChanged changed) {
    ledger.sync(changed.set());
    wakeWaiters();
    return this;
  }

  private Behavior<Command> onLoad(LoadReported reported) {
    reported.loads().loads().forEach(ledger::report);
    wakeWaiters();
    return this;
  }

  private Behavior<Command> onReap() {
    List<Lease> reaped = ledger.reap(System.nanoTime(), settings.tokenTtl().toNanos());
    if (!reaped.isEmpty()) {
      metrics.reaped(reaped.size());
      getContext().getLog().debug("Reaped {} lease(s) older than {}", reaped.size(),
          settings.tokenTtl());
      wakeWaiters();
    }
    return this;
  }

  private Behavior<Command> onSnapshot(GetSnapshot get) {
    get.replyTo().tell(ledger.snapshot());
    return this;
  }

  /** Unavailable for the downtime (messages are dropped, asks time out), then empty. */
  private Behavior<Command> onRestart(Restart restart) {
    getContext().getLog().warn("CapacityQueue restarting: unavailable for {} ms, then empty",
        restart.downtimeMillis());
    timers.cancelAll();
    waiting.clear();
    timers.startSingleTimer(Resume.INSTANCE, Duration.ofMillis(restart.downtimeMillis()));
    return Behaviors.receive(Command.class)
        .onMessage(Resume.class, m -> {
          ledger = newLedger();
          startTimers();
          getContext().getLog().info("CapacityQueue back, empty; rebuilding from load reports");
          return this;
        })
        .onMessage(Stop.class, m -> Behaviors.stopped())
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  private void wakeWaiters() {
    long now = System.nanoTime();
    for (var grant : ledger.wake(now, System.currentTimeMillis())) {
      timers.cancel(new WaiterKey(grant.waiterId()));
      Long since = waiting.remove(grant.waiterId());
      metrics.granted(since == null ? 0 : now - since);
      grant.answer().tell(new AcquireResult.Granted(grant.lease()));
    }
  }

  private AcquireResult exhausted(DeploymentId deployment) {
    metrics.exhausted();
    return new AcquireResult.Exhausted("no replica of " + deployment + " has spare capacity");
  }

  private AcquireResult exhaustedNow() {
    metrics.exhausted();
    return new AcquireResult.Exhausted("no slot freed within the acquire timeout");
  }
}
