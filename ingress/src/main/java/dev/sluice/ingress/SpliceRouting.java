package dev.sluice.ingress;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.core.openai.ForwardedBody;
import dev.sluice.ingress.splice.Decision;
import dev.sluice.ingress.splice.HeaderField;
import dev.sluice.ingress.splice.SpliceDispatcher;
import dev.sluice.ingress.splice.SpliceRequest;
import dev.sluice.router.RouteRequest;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpMethod;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/**
 * The splice data path's decisions: completions are routed by the router singleton and forwarded
 * to the chosen replica; everything else is answered by the {@link IngressHandler}, exactly as on
 * the Pekko HTTP data path.
 */
final class SpliceRouting implements SpliceDispatcher {

  private static final long STRICT_TIMEOUT_MILLIS = 5_000;

  private final DirectRouting routing;
  private final IngressHandler handler;
  private final IngressSettings settings;
  private final ActorSystem<?> system;
  private final Executor executor;

  SpliceRouting(ActorSystem<?> system, DirectRouting routing, IngressHandler handler,
      IngressSettings settings) {
    this.routing = routing;
    this.handler = handler;
    this.settings = settings;
    this.system = system;
    this.executor = system.executionContext();
  }

  @Override
  public CompletionStage<Decision> decide(SpliceRequest request) {
    String requestId = IngressHandler.requestId(request.header(SluiceHeaders.REQUEST_ID));
    String path = request.path();
    if (request.method().equals("POST")
        && (path.equals("/v1/chat/completions") || path.equals("/v1/completions"))) {
      return forward(request, requestId);
    }
    Optional<HttpMethod> method = HttpMethods.lookup(request.method());
    if (method.isEmpty()) {
      return CompletableFuture.completedFuture(new Decision.Respond(ErrorResponses.of(
          new ApiError(ApiError.Code.METHOD_NOT_ALLOWED, "Method " + request.method()
              + " not allowed on " + path, null), requestId)));
    }
    HttpRequest local;
    try {
      local = HttpRequest.create(request.target())
          .withMethod(method.get())
          .addHeader(RawHeader.create(SluiceHeaders.REQUEST_ID, requestId))
          .withEntity(HttpEntities.create(ContentTypes.APPLICATION_OCTET_STREAM, request.body()));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(new Decision.Respond(
          ErrorResponses.of(ApiError.invalid(null, "Invalid request target: " + request.target()),
              requestId)));
    }
    return handler.apply(local)
        .thenComposeAsync(response -> response.toStrict(STRICT_TIMEOUT_MILLIS, system),
            executor)
        .thenApplyAsync(strict -> (Decision) new Decision.Respond(strict), executor);
  }

  private CompletionStage<Decision> forward(SpliceRequest request, String requestId) {
    Optional<String> session = Optional.empty();
    for (HeaderField field : request.headers()) {
      if (SluiceHeaders.sameHeader(settings.sessionHeader(), field.name())) {
        session = Optional.of(field.value());
        break;
      }
    }
    Optional<ForwardedBody> body = Optional.empty();
    if (settings.forwardBody()) {
      body = Optional.of(ForwardedBody.cut(request.body(), settings.forwardBodyLimit()));
    }
    // Router thread -> selector loop is the only hand-off: the answer is mapped where it lands.
    return routing.route(new RouteRequest(requestId, session, body, routing.budgetMillis()),
            Runnable::run)
        .thenApplyAsync(outcome -> {
          if (outcome instanceof DirectRouting.Refused refused) {
            return new Decision.Respond(refused.response());
          }
          DirectRouting.Chosen chosen = (DirectRouting.Chosen) outcome;
          return new Decision.Forward(chosen.replica().host(), chosen.replica().port(),
              chosen.replica().id().toString(), requestId, List.<HeaderField>of(),
              chosen.lease());
        }, Runnable::run);
  }

  @Override
  public HttpResponse upstreamFailed(Decision.Forward target, UpstreamFailure failure,
      String detail) {
    String replica = "replica " + target.replicaId() + ": " + detail;
    return switch (failure) {
      case UNREACHABLE -> FailClosed.response(ServeReason.REPLICA_UNREACHABLE,
          target.requestId(), replica);
      case FAILED -> failed(ApiError.Code.UPSTREAM_FAILED,
          "Replica " + target.replicaId() + " failed: " + detail, target);
      case TIMED_OUT -> failed(ApiError.Code.UPSTREAM_TIMEOUT,
          "Replica " + target.replicaId() + " did not answer: " + detail, target);
    };
  }

  private static HttpResponse failed(ApiError.Code code, String message, Decision.Forward target) {
    return ErrorResponses.upstream(code, message, target.requestId(), target.replicaId());
  }
}
