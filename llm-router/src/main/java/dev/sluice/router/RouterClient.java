package dev.sluice.router;

import dev.sluice.core.Failures;
import dev.sluice.core.cluster.SingletonWatch;
import dev.sluice.core.http.ServeReason;
import dev.sluice.router.reserve.ReservationClient;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * The Java API to the router singleton. {@link #choose} reserves a slot (the path the relayed mode
 * uses): the {@link Selection} must be dispatched once or closed. {@link #pick} only picks (the
 * direct-streaming path): its selection cannot be dispatched. Failures complete the stage with a
 * {@link RoutingException} carrying the reason.
 */
public final class RouterClient {

  private static final Duration ANSWER_MARGIN = Duration.ofSeconds(1);

  private final ActorSystem<?> system;
  private final ActorRef<LLMRouter.Command> router;
  private final Duration timeout;
  private final ReservationClient reservations;
  private final SingletonWatch controlPlane;

  public RouterClient(ActorSystem<?> system, ActorRef<LLMRouter.Command> router, Duration timeout) {
    this.system = Objects.requireNonNull(system, "system");
    this.router = Objects.requireNonNull(router, "router");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.reservations = new ReservationClient(system, Duration.ofSeconds(2));
    this.controlPlane = SingletonWatch.get(system);
  }

  /** Reserve a slot on a replica, walking ranks and backing off for up to the timeout. */
  public CompletionStage<Selection> choose(RouteRequest request) {
    return ask(replyTo -> new LLMRouter.Choose(request, timeout.toMillis(), replyTo),
        timeout.plus(ANSWER_MARGIN))
        .thenApplyAsync(result -> {
          if (result instanceof RouteResult.Reserved reserved) {
            return new Selection(system, router, reservations, reserved.replica(),
                java.util.Optional.of(reserved.token()), request.requestId());
          }
          throw failure(result);
        }, system.executionContext());
  }

  /** Pick a replica without reserving (a selection that cannot be dispatched). */
  public CompletionStage<Selection> pick(RouteRequest request) {
    return ask(replyTo -> new LLMRouter.Route(request, replyTo), timeout)
        .thenApplyAsync(result -> {
          if (result instanceof RouteResult.Routed routed) {
            return new Selection(system, router, reservations, routed.replica(),
                java.util.Optional.empty(), request.requestId());
          }
          throw failure(result);
        }, system.executionContext());
  }

  private CompletionStage<RouteResult> ask(
      org.apache.pekko.japi.function.Function<ActorRef<RouteResult>, LLMRouter.Command> message,
      Duration within) {
    Optional<String> gap = controlPlane.unavailable();
    if (gap.isPresent()) {
      // A failover is under way: say so now rather than after the timeout.
      return CompletableFuture.failedFuture(new RoutingException(
          ServeReason.ROUTER_UNREACHABLE, gap.get()));
    }
    return controlPlane.track(() -> AskPattern.ask(LocalRouter.get(system).or(router),
            message::apply, within, system.scheduler()).toCompletableFuture())
        .exceptionallyComposeAsync(failure -> CompletableFuture.failedFuture(new RoutingException(
            ServeReason.ROUTER_UNREACHABLE,
            Failures.cause(failure) instanceof SingletonWatch.SingletonUnreachable lost
                ? lost.getMessage()
                : "no answer from the router within " + within.toMillis() + " ms")),
            system.executionContext());
  }

  private static RoutingException failure(RouteResult result) {
    if (result instanceof RouteResult.NotRouted notRouted) {
      return new RoutingException(notRouted.reason(), notRouted.detail());
    }
    return new RoutingException(ServeReason.ROUTER_NON_200, "unexpected answer " + result);
  }
}
