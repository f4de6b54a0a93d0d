package dev.sluice.router;

import dev.sluice.capacity.AcquireResult;
import dev.sluice.capacity.CapacityQueue;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.http.ServeReason;
import dev.sluice.router.policy.capacityqueue.CapacityQueueRouter;
import dev.sluice.router.spi.PendingRequest;
import java.time.Duration;
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
 * {@code max_faults} faults this request falls back to power-of-two. Always answers exactly once;
 * a lease granted after it answered is released at once.
 */
final class LeaseWalk extends AbstractBehavior<LeaseWalk.Command> {

  sealed interface Command extends NoSerializationVerificationNeeded
      permits Answered, Failed, Retry, Deadline, Fallback {}

  private record Answered(AcquireResult result) implements Command {}

  private record Failed(Throwable cause) implements Command {}

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
  private final ActorRef<RouteResult> replyTo;
  private final CapacityQueueRouter policy;
  private final TimerScheduler<Command> timers;
  private int faults;
  private int backoffs;
  private boolean answered;
  private boolean asking;
  private String lastProblem = "no lease granted yet";

  private LeaseWalk(ActorContext<Command> context, TimerScheduler<Command> timers,
      ActorRef<LLMRouter.Command> router, ActorRef<CapacityQueue.Command> queue,
      DeploymentId deployment, PendingRequest request, ActorRef<RouteResult> replyTo,
      CapacityQueueRouter policy, Duration budget) {
    super(context);
    this.timers = timers;
    this.router = router;
    this.queue = queue;
    this.deployment = deployment;
    this.request = request;
    this.replyTo = replyTo;
    this.policy = policy;
    timers.startSingleTimer(Deadline.INSTANCE, budget);
    acquire();
  }

  static Behavior<Command> create(ActorRef<LLMRouter.Command> router,
      ActorRef<CapacityQueue.Command> queue, DeploymentId deployment, PendingRequest request,
      ActorRef<RouteResult> replyTo, CapacityQueueRouter policy, Duration budget) {
    return Behaviors.withTimers(timers -> Behaviors.setup(context -> new LeaseWalk(context,
        timers, router, queue, deployment, request, replyTo, policy, budget)));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Answered.class, this::onAnswered)
        .onMessage(Failed.class, this::onFailed)
        .onMessage(Retry.class, m -> acquire())
        .onMessage(Fallback.class, this::onFallback)
        .onMessage(Deadline.class, m -> onDeadline())
        .build();
  }

  private Behavior<Command> acquire() {
    asking = true;
    getContext().ask(AcquireResult.class, queue,
        policy.acquireTimeout().plus(ANSWER_MARGIN),
        replyTo -> new CapacityQueue.Acquire(deployment, policy.acquireTimeout().toMillis(),
            replyTo),
        (result, failure) -> failure == null ? new Answered(result) : new Failed(failure));
    return this;
  }

  private Behavior<Command> onAnswered(Answered answered) {
    asking = false;
    if (answered.result() instanceof AcquireResult.Granted granted) {
      if (this.answered) {
        queue.tell(new CapacityQueue.Release(granted.lease().id()));
        return Behaviors.stopped();
      }
      this.answered = true;
      replyTo.tell(new RouteResult.Routed(granted.lease().replica(),
          Optional.of(granted.lease().id())));
      router.tell(new LLMRouter.Leased(deployment, request, granted.lease().replica()));
      return Behaviors.stopped();
    }
    lastProblem = ((AcquireResult.Exhausted) answered.result()).detail();
    return backOff();
  }

  private Behavior<Command> onFailed(Failed failed) {
    asking = false;
    faults++;
    lastProblem = "CapacityQueue fault " + faults + ": " + failed.cause().getMessage();
    if (faults >= policy.maxFaults()) {
      getContext().getLog().warn("Request {}: {} CapacityQueue faults, falling back to "
          + "power-of-two", request.requestId(), faults);
      router.tell(new LLMRouter.RankFor(deployment, request,
          getContext().messageAdapter(LLMRouter.Ranking.class, Fallback::new)));
      return this;
    }
    return backOff();
  }

  private Behavior<Command> onFallback(Fallback fallback) {
    if (answered) {
      return Behaviors.stopped();
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
    return Behaviors.stopped();
  }

  private Behavior<Command> backOff() {
    if (answered) {
      return Behaviors.stopped();
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
    // An acquire still in flight may yet be granted: stay to release it.
    return asking ? this : Behaviors.stopped();
  }
}
