package dev.sluice.router;

import dev.sluice.capacity.AcquireResult;
import dev.sluice.capacity.CapacityQueue;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.http.ServeReason;
import dev.sluice.router.policy.capacityqueue.CapacityQueueRouter;
import dev.sluice.router.spi.PendingRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One {@link LLMRouter.Route} under the {@code capacity-queue} policy: acquire a lease; exhausted
 * means back off (25 ms × 2^n, at most 500 ms) and ask again until the routing budget ends
 * ({@code capacity_exhausted}); a fault (no answer, or a failure) also backs off, and after
 * {@code max_faults} faults this request falls back to power-of-two. Always answers exactly once.
 * Acquires are answered to this actor itself (not to a short-lived ask), so a grant that arrives
 * late, after a fault timeout or after the answer, still arrives here and is released at once:
 * a late grant never leaks a lease.
 */
final class LeaseWalk extends AbstractBehavior<LeaseWalk.Command> {

  sealed interface Command extends NoSerializationVerificationNeeded
      permits Answered, Fault, Retry, Deadline, Fallback, GiveUp {}

  private record Answered(AcquireResult result) implements Command {}

  private enum Fault implements Command { INSTANCE }

  private enum GiveUp implements Command { INSTANCE }

  private enum Retry implements Command { INSTANCE }

  private enum Deadline implements Command { INSTANCE }

  private record Fallback(LLMRouter.Ranking ranking) implements Command {}

  private static final Duration FIRST_BACKOFF = Duration.ofMillis(25);
  private static final Duration MAX_BACKOFF = Duration.ofMillis(500);
  private static final Duration ANSWER_MARGIN = Duration.ofMillis(500);

  private final ActorRef<LLMRouter.Command> router;
  private final ActorRef<CapacityQueue.Command> queue;
  private final DeploymentId deployment;
  private final PendingRequest request;
  private final List<String> excluded;
  private final ActorRef<RouteResult> replyTo;
  private final CapacityQueueRouter policy;
  private final TimerScheduler<Command> timers;
  private int faults;
  private int backoffs;
  private boolean answered;
  /** Whether the current acquire still waits for its answer (no fault timeout yet). */
  private boolean asking;
  /** Acquires sent and not answered yet (including ones that timed out as faults). */
  private int outstanding;
  private final ActorRef<AcquireResult> answers;
  private String lastProblem = "no lease granted yet";

  private LeaseWalk(ActorContext<Command> context, TimerScheduler<Command> timers,
      ActorRef<LLMRouter.Command> router, ActorRef<CapacityQueue.Command> queue,
      DeploymentId deployment, PendingRequest request, List<String> excluded,
      ActorRef<RouteResult> replyTo, CapacityQueueRouter policy, Duration budget) {
    super(context);
    this.excluded = excluded;
    this.timers = timers;
    this.router = router;
    this.queue = queue;
    this.deployment = deployment;
    this.request = request;
    this.replyTo = replyTo;
    this.policy = policy;
    this.answers = context.messageAdapter(AcquireResult.class, Answered::new);
    timers.startSingleTimer(Deadline.INSTANCE, budget);
    acquire();
  }

  static Behavior<Command> create(ActorRef<LLMRouter.Command> router,
      ActorRef<CapacityQueue.Command> queue, DeploymentId deployment, PendingRequest request,
      List<String> excluded, ActorRef<RouteResult> replyTo, CapacityQueueRouter policy,
      Duration budget) {
    return Behaviors.withTimers(timers -> Behaviors.setup(context -> new LeaseWalk(context,
        timers, router, queue, deployment, request, excluded, replyTo, policy, budget)));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Answered.class, this::onAnswered)
        .onMessage(Fault.class, m -> onFault())
        .onMessage(GiveUp.class, m -> Behaviors.stopped())
        .onMessage(Retry.class, m -> acquire())
        .onMessage(Fallback.class, this::onFallback)
        .onMessage(Deadline.class, m -> onDeadline())
        .build();
  }

  private Behavior<Command> acquire() {
    asking = true;
    outstanding++;
    queue.tell(new CapacityQueue.Acquire(deployment, policy.acquireTimeout().toMillis(),
        excluded, answers));
    timers.startSingleTimer(Fault.INSTANCE, policy.acquireTimeout().plus(ANSWER_MARGIN));
    return this;
  }

  private Behavior<Command> onAnswered(Answered answer) {
    outstanding--;
    if (answer.result() instanceof AcquireResult.Granted granted) {
      if (answered) {
        queue.tell(new CapacityQueue.Release(granted.lease().id()));
        return finishIfSettled();
      }
      answered = true;
      timers.cancel(Fault.INSTANCE);
      replyTo.tell(new RouteResult.Routed(granted.lease().replica(),
          Optional.of(granted.lease().id())));
      router.tell(new LLMRouter.Leased(deployment, request, granted.lease().replica()));
      return finishIfSettled();
    }
    if (answered) {
      return finishIfSettled();
    }
    if (!asking) {
      return this; // a late "exhausted" for an acquire already counted as a fault
    }
    asking = false;
    timers.cancel(Fault.INSTANCE);
    lastProblem = ((AcquireResult.Exhausted) answer.result()).detail();
    return backOff();
  }

  private Behavior<Command> onFault() {
    if (answered || !asking) {
      return this;
    }
    asking = false;
    faults++;
    lastProblem = "CapacityQueue fault " + faults + ": no answer within "
        + policy.acquireTimeout().plus(ANSWER_MARGIN).toMillis() + " ms";
    if (faults >= policy.maxFaults()) {
      getContext().getLog().warn("Request {}: {} CapacityQueue faults, falling back to "
          + "power-of-two", request.requestId(), faults);
      router.tell(new LLMRouter.RankFor(deployment, request, excluded,
          getContext().messageAdapter(LLMRouter.Ranking.class, Fallback::new)));
      return this;
    }
    return backOff();
  }

  /**
   * Stops once answered and no acquire is outstanding; otherwise lingers a while so that a late
   * grant is still released, then gives up (the queue's TTL reaper covers anything later).
   */
  private Behavior<Command> finishIfSettled() {
    if (outstanding <= 0) {
      return Behaviors.stopped();
    }
    timers.startSingleTimer(GiveUp.INSTANCE, policy.acquireTimeout().plus(ANSWER_MARGIN)
        .multipliedBy(2));
    return this;
  }

  private Behavior<Command> onFallback(Fallback fallback) {
    if (answered) {
      return finishIfSettled();
    }
    answered = true;
    var ranks = fallback.ranking().ranks();
    if (ranks.isEmpty() || ranks.get(0).isEmpty()) {
      replyTo.tell(new RouteResult.NotRouted(ServeReason.NO_REPLICAS,
          "CapacityQueue unavailable and no replica of " + deployment + " can take the request"));
    } else {
      replyTo.tell(new RouteResult.Routed(ranks.get(0).get(0)));
      router.tell(new LLMRouter.FellBack(deployment, request, ranks.get(0).get(0)));
    }
    return finishIfSettled();
  }

  private Behavior<Command> backOff() {
    if (answered) {
      return finishIfSettled();
    }
    long delay = Math.min(FIRST_BACKOFF.toMillis() << Math.min(backoffs++, 10),
        MAX_BACKOFF.toMillis());
    timers.startSingleTimer(Retry.INSTANCE, Duration.ofMillis(delay));
    return this;
  }

  private Behavior<Command> onDeadline() {
    if (!answered) {
      answered = true;
      replyTo.tell(new RouteResult.NotRouted(ServeReason.CAPACITY_EXHAUSTED,
          "no capacity lease for " + deployment + " within the routing budget (" + lastProblem
              + ")"));
    }
    return finishIfSettled();
  }
}
