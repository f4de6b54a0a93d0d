package dev.sluice.ingress;

import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.observe.IngressObserver;
import dev.sluice.ingress.observe.RequestTrace;
import dev.sluice.ingress.edge.EdgePolicy;
import dev.sluice.router.LLMRouter;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.ResponseEntity;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.apache.pekko.japi.function.Function;

/**
 * The relayed path's server on Pekko HTTP ({@code direct-streaming = off}), on loopback behind
 * the splice's strict reader ({@link RelayedFront}): the same edge policy and local routes as
 * the splice; {@code POST /v1/chat/completions} and {@code POST
 * /v1/completions} go to a replica actor through the {@link RelayedPath}.
 */
final class IngressHandler implements Function<HttpRequest, CompletionStage<HttpResponse>> {

  private final ActorSystem<?> system;
  private final EdgePolicy edge;
  private final LocalRoutes local;
  private final RelayedPath relayed;
  private final IngressObserver observer;

  /**
   * {@code observer} gets this server's requests: none when the splice in front of it (the
   * {@link RelayedFront}) observes them, as clients see them.
   */
  IngressHandler(ActorSystem<?> system, ActorRef<LLMRouter.Command> router,
      ReplicaSetView view, IngressSettings settings, IngressObserver observer) {
    this.system = system;
    this.edge = settings.edgePolicy();
    this.local = new LocalRoutes(view);
    this.relayed = new RelayedPath(system, router, view, settings, edge);
    this.observer = observer;
  }

  @Override
  public CompletionStage<HttpResponse> apply(HttpRequest request) {
    String path = request.getUri().path();
    String requestId = edge.requestId(header(request, SluiceHeaders.REQUEST_ID));
    RequestTrace trace = observer.begin(requestId, path);
    return answer(request, path, requestId).thenApply(response -> observed(response, trace));
  }

  private CompletionStage<HttpResponse> answer(HttpRequest request, String path,
      String requestId) {
    Optional<Answer> refused = edge.authenticate(path, header(request, "authorization"),
        requestId).or(() -> edge.refuseContentCoding(request.getHeaders(), HttpHeader::name,
            HttpHeader::value, requestId));
    LocalRoutes.Target target = local.target(path);
    if (refused.isEmpty() && target != null && LocalRoutes.isCompletion(target.path())
        && request.method().equals(HttpMethods.POST)) {
      return relayed.forward(request, requestId, target.path().equals("/v1/completions")
          ? CompletionRequest.Kind.COMPLETION : CompletionRequest.Kind.CHAT, target.app());
    }
    request.discardEntityBytes(system);
    Answer answer = refused.orElseGet(() ->
        local.answer(request.method().value(), path, requestId));
    return CompletableFuture.completedFuture(PekkoAnswers.response(answer));
  }

  /**
   * The response, its body counted into {@code trace} as it goes out; the trace ends with the
   * body's last byte (or when the stream fails or the client leaves).
   */
  private HttpResponse observed(HttpResponse response, RequestTrace trace) {
    String replica = response.getHeader(SluiceHeaders.REPLICA).map(HttpHeader::value)
        .orElse(null);
    observer.routed(trace, replica);
    String type = response.entity().getContentType().mediaType().toString();
    observer.head(trace, response.status().intValue(),
        response.getHeader(SluiceHeaders.SERVE_REASON).map(HttpHeader::value).orElse(null),
        type.startsWith("text/event-stream"));
    ResponseEntity entity = response.entity();
    if (entity instanceof HttpEntity.Strict strict) {
      byte[] body = strict.getData().toArray();
      trace.body(body, 0, body.length);
      observer.ended(trace, RequestTrace.Outcome.COMPLETED);
      return response;
    }
    Source<ByteString, Object> counted = entity.getDataBytes().map(bytes -> {
      byte[] array = bytes.toArray();
      trace.body(array, 0, array.length);
      return bytes;
    }).watchTermination((mat, done) -> {
      // An executor, or Scala's future adapter runs it on another thread (see SingletonWatch).
      done.whenCompleteAsync((d, failure) -> observer.ended(trace, failure == null
          ? RequestTrace.Outcome.COMPLETED : RequestTrace.Outcome.ABORTED), Runnable::run);
      return mat;
    });
    return response.withEntity(HttpEntities.createChunked(entity.getContentType(), counted));
  }

  private static String header(HttpRequest request, String name) {
    return request.getHeader(name).map(HttpHeader::value).orElse(null);
  }
}
