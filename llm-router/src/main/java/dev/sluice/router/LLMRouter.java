package dev.sluice.router;

import dev.sluice.capacity.CapacityQueue;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.NodeTopics;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaLoads;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.core.serialization.ClusterMessage;
import dev.sluice.router.internal.Deployments;
import dev.sluice.router.internal.Deployments.Target;
import dev.sluice.router.load.LoadTracker;
import dev.sluice.router.load.ReplicaProber;
import dev.sluice.router.reserve.ReservationClient;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.core.http.ServeReason;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.pubsub.Topic;

/**
 * The routing singleton (role {@code control}). Holds the latest {@link ReplicaSet} and one
 * policy per deployment, plus what it knows of replica load. {@link Route} <em>picks</em> (one
 * policy call, the first replica of the first non-empty rank; the direct-streaming path);
 * {@link Choose} <em>reserves</em> a slot, walking the ranks and backing off (the choose/dispatch
 * path, run by a per-request {@link ReservationWalk}). It never sees a token.
 */
public final class LLMRouter extends AbstractBehavior<LLMRouter.Command> {

  public sealed interface Command permits Route, Choose, RequestCompleted, Stop, SetChanged,
      LoadReported, ProbeAnswered, ProbeFailed, RankFor, ReservedBy, Observed, Leased,
      FellBack, LLMRouter.HeldCheck {}

  /** Pick a replica for one request (pick-only, the direct-streaming path). */
  public record Route(RouteRequest request, ActorRef<RouteResult> replyTo)
      implements Command, ClusterMessage {
    public Route {
      Objects.requireNonNull(request, "request");
      Objects.requireNonNull(replyTo, "replyTo");
    }
  }

  /**
   * Reserve a slot for one request: answers {@link RouteResult.Reserved} or, after backing off
   * for up to {@code timeoutMillis}, {@link RouteResult.NotRouted}.
   */
  public record Choose(RouteRequest request, long timeoutMillis, ActorRef<RouteResult> replyTo)
      implements Command, ClusterMessage {
    public Choose {
      Objects.requireNonNull(request, "request");
      Objects.requireNonNull(replyTo, "replyTo");
    }
  }

  /** A dispatched request finished on {@code replicaId}. */
  public record RequestCompleted(String replicaId, String requestId)
      implements Command, ClusterMessage {}

  /** The singleton's stop message (handed over on leaving). */
  public enum Stop implements Command, ClusterMessage { INSTANCE }

  private interface Internal extends NoSerializationVerificationNeeded {}

  private record SetChanged(ReplicaSet set) implements Command, Internal {}

  private record LoadReported(ReplicaLoads loads) implements Command, Internal {}

  private record ProbeAnswered(ReplicaInfo replica, ReplicaProber.Probed probed)
      implements Command, Internal {}

  private record ProbeFailed(ReplicaInfo replica) implements Command, Internal {}

  /** From a walk: rank the candidates for this request (again). */
  record RankFor(DeploymentId deployment, PendingRequest request, List<String> excluded,
      ActorRef<Ranking> replyTo) implements Command, Internal {}

  /** The answer to {@link RankFor}: the ranks and how many replicas the deployment has. */
  record Ranking(List<List<ReplicaInfo>> ranks, int replicas) implements Internal {}

  /** From a walk: the request got a slot on the replica at {@code rank}. */
  record ReservedBy(DeploymentId deployment, PendingRequest request, ReplicaInfo replica,
      int rank, int ongoing) implements Command, Internal {}

  /** From a walk: a replica refused and said how busy it is. */
  record Observed(ReplicaId replica, int ongoing) implements Command, Internal {}

  /** From a lease walk: the request got a lease on {@code replica}. */
  record Leased(DeploymentId deployment, PendingRequest request, ReplicaInfo replica)
      implements Command, Internal {}

  /** From a lease walk: the queue kept failing, the request went to a power-of-two pick. */
  record FellBack(DeploymentId deployment, PendingRequest request, ReplicaInfo replica)
      implements Command, Internal {}

  private final LoadTracker loads = new LoadTracker();
  private final Deployments deployments;
  private final ReplicaProber prober;
  private final ReservationClient reservations;
  private final SluiceMetrics metrics;
  private final Optional<ActorRef<CapacityQueue.Command>> queue;
  private final Duration defaultBudget;

  /** When this incarnation started; until the first replica set arrives it cannot route. */
  private final long startedNanos;
  private boolean heardSets;

  /** How long a new router waits for its first replica set before saying "no replicas". */
  private static final Duration WARM_UP = Duration.ofSeconds(10);
  /**
   * Meanwhile a request waits this long for the sets (a failover's controller publishes them
   * within a second or so of the router starting) before it is answered router_unreachable.
   */
  private static final Duration HOLD = Duration.ofMillis(1500);
  private static final int MAX_HELD = 10_000;

  private record Held(Route route, long sinceNanos) {}

  private enum HeldCheck implements Command, Internal { INSTANCE }

  private final java.util.ArrayDeque<Held> held = new java.util.ArrayDeque<>();
  private final io.prometheus.metrics.core.datapoints.GaugeDataPoint heldGauge;

  private LLMRouter(ActorContext<Command> context, SluiceMetrics metrics,
      Optional<ActorRef<CapacityQueue.Command>> queue, Duration defaultBudget) {
    super(context);
    this.metrics = metrics;
    this.heldGauge = metrics.gauge("router_held_requests", "Requests a router that has just "
        + "started holds until its first replica sets arrive (its stash).").labelValues();
    this.queue = queue;
    this.defaultBudget = defaultBudget;
    this.deployments = new Deployments(loads, metrics);
    this.startedNanos = System.nanoTime();
    this.prober = new ReplicaProber(context.getSystem());
    this.reservations = new ReservationClient(context.getSystem(), Duration.ofSeconds(2));
    NodeTopics topics = NodeTopics.get(context.getSystem());
    topics.replicaSets().tell(Topic.subscribe(
        context.messageAdapter(ReplicaSet.class, SetChanged::new)));
    topics.replicaLoads().tell(Topic.subscribe(
        context.messageAdapter(ReplicaLoads.class, LoadReported::new)));
    context.getLog().info("LLMRouter singleton started on {} (pick-only for direct streaming)",
        context.getSystem().address());
    LocalRouter.get(context.getSystem()).started(context.getSelf());
  }

  public static Behavior<Command> create() {
    return create(SluiceMetrics.global());
  }

  public static Behavior<Command> create(SluiceMetrics metrics) {
    return create(metrics, Optional.empty(), Duration.ofSeconds(4));
  }

  /**
   * @param queue the CapacityQueue (its singleton proxy), for deployments using
   *     {@code capacity-queue}
   * @param defaultBudget how long a request may wait for capacity when its caller gave no budget
   */
  public static Behavior<Command> create(SluiceMetrics metrics,
      Optional<ActorRef<CapacityQueue.Command>> queue, Duration defaultBudget) {
    return Behaviors.setup(context -> new LLMRouter(context, metrics, queue, defaultBudget));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Route.class, this::onRoute)
        .onMessage(Choose.class, this::onChoose)
        .onMessage(RequestCompleted.class, this::onCompleted)
        .onMessage(SetChanged.class, this::onSetChanged)
        .onMessage(LoadReported.class, m -> onLoads(m.loads()))
        .onMessage(ProbeAnswered.class, this::onProbeAnswered)
        .onMessage(ProbeFailed.class, m -> onProbeFailed(m.replica()))
        .onMessage(RankFor.class, this::onRankFor)
        .onMessage(ReservedBy.class, this::onReservedBy)
        .onMessage(Observed.class, m -> onObserved(m.replica(), m.ongoing()))
        .onMessage(Leased.class, this::onLeased)
        .onMessage(FellBack.class, this::onFellBack)
        .onMessage(HeldCheck.class, m -> onHeldCheck())
        .onMessage(Stop.class, m -> {
          // From now on this node's callers go through the proxy, which holds them for the next.
          LocalRouter.get(getContext().getSystem()).stopping(getContext().getSelf());
          return Behaviors.stopped();
        })
        .onSignal(org.apache.pekko.actor.typed.PostStop.class, s -> {
          LocalRouter.get(getContext().getSystem()).stopping(getContext().getSelf());
          deployments.retireAll();  // the singleton moved on: its gauges go with it
          heldGauge.set(0);
          return this;
        })
        .build();
  }

  private Behavior<Command> onSetChanged(SetChanged changed) {
    heardSets = true;
    if (deployments.apply(changed.set())) {
      loads.retain(deployments.liveReplicas());
    }
    while (!held.isEmpty()) {
      onRoute(held.pollFirst().route());
    }
    heldGauge.set(held.size());
    return this;
  }

  private Behavior<Command> onHeldCheck() {
    long now = System.nanoTime();
    while (!held.isEmpty() && now - held.peekFirst().sinceNanos() >= HOLD.toNanos()) {
      notYet(held.pollFirst().route());
    }
    heldGauge.set(held.size());
    if (!held.isEmpty()) {
      getContext().scheduleOnce(HOLD.dividedBy(6), getContext().getSelf(), HeldCheck.INSTANCE);
    }
    return this;
  }

  private void notYet(Route route) {
    route.replyTo().tell(new RouteResult.NotRouted(ServeReason.ROUTER_UNREACHABLE,
        "the router started " + (System.nanoTime() - startedNanos) / 1_000_000
            + " ms ago and has not received the replica sets yet"));
  }

  private Behavior<Command> onRoute(Route route) {
    if (!heardSets && System.nanoTime() - startedNanos < WARM_UP.toNanos()) {
      // Just started (a failover): no replica set yet is not the same as no replicas. The
      // request waits a little for the controller's first publication.
      if (held.size() < MAX_HELD) {
        if (held.isEmpty()) {
          getContext().scheduleOnce(HOLD.dividedBy(6), getContext().getSelf(),
              HeldCheck.INSTANCE);
        }
        held.addLast(new Held(route, System.nanoTime()));
        heldGauge.set(held.size());
      } else {
        notYet(route);
      }
      return this;
    }
    Optional<Target> leased = deployments.resolve(route.request())
        .filter(target -> target.routing().leasePolicy().isPresent() && queue.isPresent());
    if (leased.isPresent()) {
      long budget = route.request().budgetMillis();
      getContext().spawnAnonymous(LeaseWalk.create(getContext().getSelf(), queue.get(),
          leased.get().routing().set().deployment(), leased.get().request(),
          route.request().excluded(), route.replyTo(),
          leased.get().routing().leasePolicy().get(),
          budget > 0 ? Duration.ofMillis(budget) : defaultBudget));
      return this;
    }
    RouteResult result = deployments.resolve(route.request()).map(target -> {
      List<List<ReplicaInfo>> ranks = without(target.routing().rank(target.request()),
          route.request().excluded());
      for (int i = 0; i < ranks.size(); i++) {
        if (!ranks.get(i).isEmpty()) {
          ReplicaInfo replica = ranks.get(i).get(0);
          loads.onAssigned(replica.id());
          target.routing().routed(target.request(), i);
          return (RouteResult) new RouteResult.Routed(replica);
        }
      }
      return Deployments.noReplicas(target.routing(), route.request().excluded());
    }).orElseGet(() -> deployments.unresolved(route.request()));
    route.replyTo().tell(result);
    startProbes();
    return this;
  }

  private Behavior<Command> onChoose(Choose choose) {
    Optional<Target> target = deployments.resolve(choose.request());
    if (target.isEmpty()) {
      choose.replyTo().tell(deployments.unresolved(choose.request()));
      return this;
    }
    getContext().spawnAnonymous(ReservationWalk.create(getContext().getSelf(),
        target.get().routing().set().deployment(), target.get().request(),
        choose.request().excluded(), choose.replyTo(),
        reservations, Duration.ofMillis(choose.timeoutMillis())));
    return this;
  }

  private Behavior<Command> onRankFor(RankFor rankFor) {
    rankFor.replyTo().tell(deployments.get(rankFor.deployment())
        .filter(routing -> routing.error().isEmpty())
        .map(routing -> new Ranking(without(routing.rank(rankFor.request()), rankFor.excluded()),
            routing.set().replicas().size()))
        .orElse(new Ranking(List.of(), 0)));
    startProbes();
    return this;
  }

  private Behavior<Command> onReservedBy(ReservedBy reserved) {
    loads.observed(reserved.replica().id(), reserved.ongoing(), 0);
    deployments.get(reserved.deployment()).filter(routing -> routing.error().isEmpty())
        .ifPresent(routing -> routing.routed(reserved.request(), reserved.rank()));
    return this;
  }

  private Behavior<Command> onLeased(Leased leased) {
    loads.onAssigned(leased.replica().id());
    deployments.get(leased.deployment()).filter(routing -> routing.error().isEmpty())
        .ifPresent(routing -> routing.routed(leased.request(), 0));
    return this;
  }

  private Behavior<Command> onFellBack(FellBack fellBack) {
    loads.onAssigned(fellBack.replica().id());
    deployments.get(fellBack.deployment())
        .ifPresent(routing -> routing.metrics().queueFallback());
    return this;
  }

  private Behavior<Command> onObserved(ReplicaId replica, int ongoing) {
    if (ongoing >= 0) {
      loads.observed(replica, ongoing, 0);
    }
    return this;
  }

  private Behavior<Command> onCompleted(RequestCompleted completed) {
    try {
      ReplicaId id = ReplicaId.parse(completed.replicaId());
      loads.onCompleted(id);
      deployments.get(id.deploymentId()).ifPresent(routing ->
          routing.completed(completed.replicaId(), completed.requestId()));
    } catch (IllegalArgumentException e) {
      getContext().getLog().debug("Completion for unknown replica id {}", completed.replicaId());
    }
    return this;
  }

  private Behavior<Command> onLoads(ReplicaLoads reported) {
    reported.loads().forEach(loads::onReport);
    return this;
  }

  private Behavior<Command> onProbeAnswered(ProbeAnswered answered) {
    loads.observed(answered.replica().id(), answered.probed().ongoing(),
        answered.probed().waiting());
    return this;
  }

  private Behavior<Command> onProbeFailed(ReplicaInfo replica) {
    loads.onProbeFailed(replica.id());
    return this;
  }

  private void startProbes() {
    for (ReplicaInfo replica : loads.takeProbeRequests()) {
      getContext().pipeToSelf(prober.probe(replica, loads.probeDeadline(replica.id())),
          (probed, failure) -> failure == null ? new ProbeAnswered(replica, probed)
              : new ProbeFailed(replica));
    }
  }

  /**
   * The ranks without the excluded replicas (the ones whose connection was refused before a
   * byte of this request was sent); a rank left empty is kept so rank numbers stay the policy's.
   */
  static List<List<ReplicaInfo>> without(List<List<ReplicaInfo>> ranks, List<String> excluded) {
    if (excluded.isEmpty()) {
      return ranks;
    }
    return ranks.stream().map(rank -> rank.stream()
        .filter(replica -> !excluded.contains(replica.id().toString())).toList()).toList();
  }
}
