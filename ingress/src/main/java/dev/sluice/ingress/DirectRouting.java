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
  /** A pick unknown to this ingress is looked up again this often, this far apart (200 ms). */
  private static final int UNKNOWN_REPLICA_RETRIES = 10;
  private static final Duration UNKNOWN_REPLICA_WAIT = Duration.ofMillis(20);

  DirectRouting(ActorSystem<?> system, ActorRef<LLMRouter.Command> router, ReplicaSetView view,
      Duration routeTimeout, Optional<ActorRef<CapacityQueue.Command>> queue) {
    this.system = system;
    this.router = router;
    this.view = view;
    this.routeTimeout = routeTimeout;
    this.queue = queue;
    this.controlPlane = SingletonWatch.get(system);
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
    return controlPlane.track(AskPattern.<LLMRouter.Command, RouteResult>ask(router,
            replyTo -> new LLMRouter.Route(request, replyTo), routeTimeout, system.scheduler())
            .toCompletableFuture())
        .handleAsync((result, failure) -> {
          if (failure != null) {
            String detail = Failures.cause(failure) instanceof SingletonWatch.SingletonUnreachable
                lost ? lost.getMessage()
                : "no answer from the router within " + routeTimeout.toMillis() + " ms";
            return CompletableFuture.<Outcome>completedFuture(new Refused(Answers.failClosed(
                ServeReason.ROUTER_UNREACHABLE, requestId, detail)));
          }
          return resolve(result, request, UNKNOWN_REPLICA_RETRIES, continuation);
        }, continuation)
        .thenCompose(outcome -> outcome);
  }

  /**
   * The router's pick in this ingress's replica set. A replica the router knows and this ingress
   * does not yet is looked up again a few times: both learn a new replica set from the same
   * publication, a few milliseconds apart; it fails closed only if it stays unknown.
   */
  private CompletionStage<Outcome> resolve(RouteResult result, RouteRequest request,
      int retries, Executor continuation) {
    String requestId = request.requestId();
    if (result instanceof RouteResult.NotRouted notRouted) {
      return CompletableFuture.completedFuture(new Refused(Answers.failClosed(notRouted.reason(),
          requestId, notRouted.detail())));
    }
    RouteResult.Routed routed = (RouteResult.Routed) result;
    String replicaId = routed.replica().id().toString();
    Optional<ReplicaInfo> known = view.replica(replicaId);
    if (known.isEmpty() && retries > 0) {
      CompletableFuture<Outcome> later = new CompletableFuture<>();
      system.scheduler().scheduleOnce(UNKNOWN_REPLICA_WAIT, () -> resolve(result, request,
              retries - 1, continuation).whenComplete((outcome, failure) ->
                  later.complete(outcome)),
          system.executionContext());
      return later;
    }
    LeaseRelease lease = routed.leaseId().isPresent()
        ? new LeaseRelease(queue, routed.leaseId()) : LeaseRelease.NONE;
    if (known.isEmpty()) {
      lease.release();
      Refused unknown = new Refused(Answers.failClosed(ServeReason.UNKNOWN_REPLICA_ID, requestId,
          "replica " + replicaId + " is not in this ingress's replica set"));
      if (!request.excluded().isEmpty()) {
        return CompletableFuture.completedFuture(unknown);
      }
      // This ingress already dropped it (its node became unreachable, say) while the router has
      // not yet: nothing was sent, so the router is asked once more without it.
      return route(request.excluding(replicaId), continuation).thenApply(outcome ->
          outcome instanceof Refused refused && ServeReason.NO_REPLICAS.value().equals(
              refused.answer().header("x-serve-reason")) ? unknown : outcome);
    }
    return CompletableFuture.completedFuture(new Chosen(known.get(), lease));
  }
}
