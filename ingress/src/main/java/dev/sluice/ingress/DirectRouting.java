package dev.sluice.ingress;

import dev.sluice.capacity.CapacityQueue;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.Failures;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.cluster.SingletonWatch;
import dev.sluice.core.http.ServeReason;
import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.Answers;
import dev.sluice.router.LLMRouter;
import dev.sluice.router.LocalRouter;
import dev.sluice.router.RouteRequest;
import dev.sluice.router.RouteResult;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * The control step of direct streaming: ask the router singleton for a replica and resolve it in
 * this ingress's replica set, or say (fail closed) why not.
 */
final class DirectRouting {

  /** The router's pick, or the answer to give instead. */
  sealed interface Outcome {}

  /** Routing failed: answer with {@code answer} (fail closed). */
  record Refused(Answer answer) implements Outcome {}

  /** Send the request to {@code replica}; release {@code lease} when its answer ends. */
  record Chosen(ReplicaInfo replica, LeaseRelease lease) implements Outcome {}

  private final ActorSystem<?> system;
  private final ActorRef<LLMRouter.Command> router;
  private final ReplicaSetView view;
  private final Duration routeTimeout;
  private final Optional<ActorRef<CapacityQueue.Command>> queue;
  private final SingletonWatch controlPlane;
  private final LocalRouter local;
  /** How many replicas one request may exclude before a dropped pick fails closed. */
  private static final int MAX_DROPPED_PICKS = 8;

  DirectRouting(ActorSystem<?> system, ActorRef<LLMRouter.Command> router, ReplicaSetView view,
      Duration routeTimeout, Optional<ActorRef<CapacityQueue.Command>> queue) {
    this.system = system;
    this.router = router;
    this.view = view;
    this.routeTimeout = routeTimeout;
    this.queue = queue;
    this.controlPlane = SingletonWatch.get(system);
    this.local = LocalRouter.get(system);
  }

  /**
   * Asks the router; the answer is turned into an outcome on {@code continuation} (the splice
   * passes a direct executor: the mapping is cheap, and every thread hand-off on a saturated
   * machine waits for a core).
   */
  CompletionStage<Outcome> route(RouteRequest request, Executor continuation) {
    String requestId = request.requestId();
    Optional<String> gap = controlPlane.unavailable();
    if (gap.isPresent()) {
      // A failover is under way: say so now rather than after the route timeout.
      return CompletableFuture.completedFuture(new Refused(Answers.failClosed(
          ServeReason.ROUTER_UNREACHABLE, requestId, gap.get())));
    }
    // The router itself when it runs on this node: no proxy hop (and, from a splice thread, its
    // answer comes on that same thread: LoopDispatcher).
    return controlPlane.track(() -> AskPattern.<LLMRouter.Command, RouteResult>ask(
            local.or(router), replyTo -> new LLMRouter.Route(request, replyTo), routeTimeout,
            system.scheduler()).toCompletableFuture())
        .handleAsync((result, failure) -> {
          if (failure != null) {
            String detail = Failures.cause(failure) instanceof SingletonWatch.SingletonUnreachable
                lost ? lost.getMessage()
                : "no answer from the router within " + routeTimeout.toMillis() + " ms";
            return CompletableFuture.<Outcome>completedFuture(new Refused(Answers.failClosed(
                ServeReason.ROUTER_UNREACHABLE, requestId, detail)));
          }
          return resolve(result, request, continuation);
        }, continuation)
        .thenCompose(outcome -> outcome);
  }

  /**
   * The router's pick, checked against this ingress's replica set. Both learn replica sets from
   * the same publication, but the router (beside the controller) usually first: a pick this
   * ingress has not heard of yet is taken as the router sent it, rather than failed. A pick this
   * ingress has already seen dropped (its node unreachable, say) is asked for again without it:
   * nothing was sent to it, and the router will drop it too.
   */
  private CompletionStage<Outcome> resolve(RouteResult result, RouteRequest request,
      Executor continuation) {
    String requestId = request.requestId();
    if (result instanceof RouteResult.NotRouted notRouted) {
      return CompletableFuture.completedFuture(new Refused(Answers.notRouted(notRouted.reason(),
          requestId, notRouted.detail())));
    }
    RouteResult.Routed routed = (RouteResult.Routed) result;
    String replicaId = routed.replica().id().toString();
    LeaseRelease lease = routed.leaseId().isPresent()
        ? new LeaseRelease(queue, routed.leaseId()) : LeaseRelease.NONE;
    Optional<ReplicaInfo> taken = view.pick(routed.replica());
    if (taken.isPresent()) {
      return CompletableFuture.completedFuture(new Chosen(taken.get(), lease));
    }
    lease.release();
    Refused unknown = new Refused(Answers.failClosed(ServeReason.UNKNOWN_REPLICA_ID, requestId,
        "replica " + replicaId + " was dropped from this ingress's replica set"));
    if (request.excluded().contains(replicaId)
        || request.excluded().size() >= MAX_DROPPED_PICKS) {
      return CompletableFuture.completedFuture(unknown);
    }
    return route(request.excluding(replicaId), continuation).thenApply(outcome ->
        outcome instanceof Refused refused && ServeReason.NO_REPLICAS.value().equals(
            refused.answer().header("x-serve-reason")) ? unknown : outcome);
  }
}
