package dev.sluice.ingress;

import dev.sluice.capacity.CapacityQueue;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.http.ServeReason;
import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.Answers;
import dev.sluice.router.LLMRouter;
import dev.sluice.router.RouteRequest;
import dev.sluice.router.RouteResult;
import java.time.Duration;
import java.util.Optional;
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

  DirectRouting(ActorSystem<?> system, ActorRef<LLMRouter.Command> router, ReplicaSetView view,
      Duration routeTimeout, Optional<ActorRef<CapacityQueue.Command>> queue) {
    this.system = system;
    this.router = router;
    this.view = view;
    this.routeTimeout = routeTimeout;
    this.queue = queue;
  }

  /**
   * Asks the router; the answer is turned into an outcome on {@code continuation} (the splice
   * passes a direct executor: the mapping is cheap, and every thread hand-off on a saturated
   * machine waits for a core).
   */
  CompletionStage<Outcome> route(RouteRequest request, Executor continuation) {
    String requestId = request.requestId();
    return AskPattern.<LLMRouter.Command, RouteResult>ask(router,
            replyTo -> new LLMRouter.Route(request, replyTo), routeTimeout, system.scheduler())
        .handleAsync((result, failure) -> {
          if (failure != null) {
            return new Refused(Answers.failClosed(ServeReason.ROUTER_UNREACHABLE, requestId,
                "no answer from the router within " + routeTimeout.toMillis() + " ms"));
          }
          return resolve(result, requestId);
        }, continuation);
  }

  private Outcome resolve(RouteResult result, String requestId) {
    if (result instanceof RouteResult.NotRouted notRouted) {
      return new Refused(Answers.failClosed(notRouted.reason(), requestId, notRouted.detail()));
    }
    RouteResult.Routed routed = (RouteResult.Routed) result;
    String replicaId = routed.replica().id().toString();
    LeaseRelease lease = routed.leaseId().isPresent()
        ? new LeaseRelease(queue, routed.leaseId()) : LeaseRelease.NONE;
    Optional<ReplicaInfo> known = view.replica(replicaId);
    if (known.isEmpty()) {
      lease.release();
      return new Refused(Answers.failClosed(ServeReason.UNKNOWN_REPLICA_ID, requestId,
          "replica " + replicaId + " is not in this ingress's replica set yet"));
    }
    return new Chosen(known.get(), lease);
  }
}
