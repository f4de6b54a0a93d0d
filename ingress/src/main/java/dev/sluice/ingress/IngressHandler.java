package dev.sluice.ingress;

import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.ingress.edge.Answer;
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
import org.apache.pekko.japi.function.Function;

/**
 * The relayed path's front door on Pekko HTTP ({@code direct-streaming = off}): the same edge
 * policy and local routes as the splice; {@code POST /v1/chat/completions} and {@code POST
 * /v1/completions} go to a replica actor through the {@link RelayedPath}.
 */
final class IngressHandler implements Function<HttpRequest, CompletionStage<HttpResponse>> {

  private final ActorSystem<?> system;
  private final EdgePolicy edge;
  private final LocalRoutes local;
  private final RelayedPath relayed;

  IngressHandler(ActorSystem<?> system, ActorRef<LLMRouter.Command> router,
      ReplicaSetView view, IngressSettings settings) {
    this.system = system;
    this.edge = settings.edgePolicy();
    this.local = new LocalRoutes(view);
    this.relayed = new RelayedPath(system, router, view, settings, edge);
  }

  @Override
  public CompletionStage<HttpResponse> apply(HttpRequest request) {
    String path = request.getUri().path();
    String requestId = edge.requestId(header(request, SluiceHeaders.REQUEST_ID));
    Optional<Answer> refused = edge.authenticate(path, header(request, "authorization"),
        requestId);
    if (refused.isEmpty() && LocalRoutes.isCompletion(path)
        && request.method().equals(HttpMethods.POST)) {
      return relayed.forward(request, requestId, path.equals("/v1/completions")
          ? CompletionRequest.Kind.COMPLETION : CompletionRequest.Kind.CHAT);
    }
    request.discardEntityBytes(system);
    Answer answer = refused.orElseGet(() ->
        local.answer(request.method().value(), path, requestId));
    return CompletableFuture.completedFuture(PekkoAnswers.response(answer));
  }

  private static String header(HttpRequest request, String name) {
    return request.getHeader(name).map(HttpHeader::value).orElse(null);
  }
}
