package dev.sluice.ingress;

import dev.sluice.core.http.ServeReason;
import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.Answers;
import dev.sluice.ingress.edge.EdgePolicy;
import dev.sluice.ingress.edge.HeaderField;
import dev.sluice.ingress.edge.UpstreamFailure;
import dev.sluice.ingress.splice.Decision;
import dev.sluice.ingress.splice.SpliceDispatcher;
import dev.sluice.ingress.splice.SpliceRequest;
import dev.sluice.router.RouteRequest;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The splice's decisions: completions are routed by the router singleton and forwarded to the
 * chosen replica; everything else is answered here ({@link LocalRoutes}), with no Pekko request
 * built and nothing read but the head. Credentials are checked on the head, before any body.
 */
final class SpliceRouting implements SpliceDispatcher {

  private final DirectRouting routing;
  private final LocalRoutes local;
  private final EdgePolicy edge;

  SpliceRouting(DirectRouting routing, LocalRoutes local, EdgePolicy edge) {
    this.routing = routing;
    this.local = local;
    this.edge = edge;
  }

  @Override
  public Optional<Answer> screen(SpliceRequest head) {
    return screen(edge, head);
  }

  /** A missing or wrong API key, or a content coding the ingress does not take: refused. */
  static Optional<Answer> screen(EdgePolicy edge, SpliceRequest head) {
    return edge.authenticate(head.path(), head.header("authorization"), head.requestId())
        .or(() -> edge.refuseContentCoding(head.headers(), HeaderField::name, HeaderField::value,
            head.requestId()));
  }

  @Override
  public CompletionStage<Decision> decide(SpliceRequest request) {
    LocalRoutes.Target target = completionTarget(local, request);
    if (target == null) {
      return answeredHere(local, request);
    }
    return forward(routeRequest(request, target), target.upstream(request.target()));
  }

  /** The application of a completion request, or null for anything answered here. */
  static LocalRoutes.Target completionTarget(LocalRoutes local, SpliceRequest request) {
    LocalRoutes.Target target = local.target(request.path());
    return target == null || !request.method().equals("POST")
        || !LocalRoutes.isCompletion(target.path()) ? null : target;
  }

  /** A request that is not a completion, answered by {@link LocalRoutes}. */
  static CompletionStage<Decision> answeredHere(LocalRoutes local, SpliceRequest request) {
    return CompletableFuture.completedFuture(new Decision.Respond(
        local.answer(request.method(), request.path(), request.requestId())));
  }

  @Override
  public CompletionStage<Decision> retry(SpliceRequest request, List<String> refused) {
    // With the refusing replicas excluded there may be nothing left: the client learns that the
    // replica was unreachable (what happened), not that the deployment has no replicas.
    LocalRoutes.Target target = local.target(request.path());
    if (target == null) {
      // The application went away between the first pick and this retry.
      return CompletableFuture.completedFuture(new Decision.Respond(
          local.answer(request.method(), request.path(), request.requestId())));
    }
    String last = refused.get(refused.size() - 1);
    return forward(routeRequest(request, target).excluding(refused),
        target.upstream(request.target()))
        .thenApply(decision -> decision instanceof Decision.Respond respond
            && ServeReason.NO_REPLICAS.value().equals(respond.answer().header("x-serve-reason"))
            ? new Decision.Respond(Answers.upstreamFailed(UpstreamFailure.UNREACHABLE,
                request.requestId(), last, "connection refused, and no other replica to route "
                    + "to" + (refused.size() > 1 ? " (refused too: " + String.join(", ",
                    refused.subList(0, refused.size() - 1)) + ")" : "")))
            : decision);
  }

  private RouteRequest routeRequest(SpliceRequest request, LocalRoutes.Target target) {
    Optional<String> session = edge.sessionId(request.headers(), HeaderField::name,
        HeaderField::value);
    return edge.routeRequest(request.requestId(), session, request.body(),
            local.routesByPrompt(target.app()))
        .withApp(target.app());
  }

  private CompletionStage<Decision> forward(RouteRequest request, String upstreamTarget) {
    // Router thread -> selector loop is the only hand-off: the answer is mapped where it lands.
    return routing.route(request, Runnable::run)
        .thenApply(outcome -> {
          if (outcome instanceof DirectRouting.Refused refused) {
            return new Decision.Respond(refused.answer());
          }
          DirectRouting.Chosen chosen = (DirectRouting.Chosen) outcome;
          return new Decision.Forward(chosen.replica().host(),
              chosen.replica().completionPort(),
              chosen.replica().id().toString(), edge.upstreamHeaders(), chosen.lease(),
              upstreamTarget);
        });
  }

  @Override
  public Answer upstreamFailed(Decision.Forward target, SpliceRequest request,
      UpstreamFailure failure, String detail) {
    return Answers.upstreamFailed(failure, request.requestId(), target.replicaId(), detail);
  }
}
