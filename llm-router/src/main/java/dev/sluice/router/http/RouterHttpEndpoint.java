package dev.sluice.router.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.http.JsonText;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.router.LLMRouter;
import dev.sluice.router.RouteRequest;
import dev.sluice.router.RouteResult;
import dev.sluice.router.RouterSettings;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.stream.Materializer;

/**
 * {@code POST /internal/route} for external data planes (HAProxy and the like), on the control
 * node. Body: the client's JSON or nothing (only its {@code model} is read, and not when cut:
 * {@code x-body-truncated}). 200 {@code {"host","port","replica_id"}}; 503 {@code {"detail"}}.
 * {@code GET /health} answers {@code {"status":"ok"}}.
 */
public final class RouterHttpEndpoint {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ActorSystem<?> system;
  private final ActorRef<LLMRouter.Command> router;
  private final RouterSettings settings;
  private final Materializer materializer;

  public RouterHttpEndpoint(
      ActorSystem<?> system, ActorRef<LLMRouter.Command> router, RouterSettings settings) {
    this.system = system;
    this.router = router;
    this.settings = settings;
    this.materializer = Materializer.matFromSystem(system);
  }

  public CompletionStage<ServerBinding> bind() {
    return Http.get(system).newServerAt(settings.httpHost(), settings.httpPort())
        .bind(this::handle);
  }

  CompletionStage<HttpResponse> handle(HttpRequest request) {
    String path = request.getUri().path();
    if (path.equals("/health") && request.method().equals(HttpMethods.GET)) {
      request.discardEntityBytes(materializer);
      return CompletableFuture.completedFuture(json(200, "{\"status\":\"ok\"}"));
    }
    if (!path.equals("/internal/route") || !request.method().equals(HttpMethods.POST)) {
      request.discardEntityBytes(materializer);
      return CompletableFuture.completedFuture(json(404, detail("not found: "
          + request.method().value() + " " + path)));
    }
    Optional<String> session = Optional.empty();
    boolean truncated = false;
    String requestId = null;
    for (HttpHeader header : request.getHeaders()) {
      if (SluiceHeaders.sameHeader(settings.sessionHeader(), header.name())) {
        session = Optional.of(header.value());
      } else if (header.is(SluiceHeaders.BODY_TRUNCATED)) {
        truncated = true;
      } else if (header.is(SluiceHeaders.REQUEST_ID)) {
        requestId = header.value();
      }
    }
    Optional<String> finalSession = session;
    boolean cut = truncated;
    String id = requestId != null ? requestId : UUID.randomUUID().toString();
    return request.entity()
        .toStrict(settings.askTimeout().toMillis(), settings.maxBodyBytes(), materializer)
        .thenCompose(strict -> AskPattern.<LLMRouter.Command, RouteResult>ask(router,
            replyTo -> new LLMRouter.Route(new RouteRequest(id, finalSession,
                cut ? Optional.empty() : model(strict.getData().utf8String())), replyTo),
            settings.askTimeout(), system.scheduler()))
        .thenApply(RouterHttpEndpoint::answer)
        .exceptionally(failure -> json(503, detail("router unreachable: " + failure)));
  }

  private static HttpResponse answer(RouteResult result) {
    if (result instanceof RouteResult.Routed routed) {
      var replica = routed.replica();
      return json(200, "{\"host\":" + JsonText.quote(replica.host()) + ",\"port\":"
          + replica.port() + ",\"replica_id\":" + JsonText.quote(replica.id().toString()) + "}");
    }
    RouteResult.NotRouted notRouted = (RouteResult.NotRouted) result;
    return json(503, detail(notRouted.detail()));
  }

  /** The {@code model} of a JSON body; empty for no body, bad JSON or no model. */
  static Optional<String> model(String body) {
    if (body.isBlank()) {
      return Optional.empty();
    }
    try {
      JsonNode model = JSON.readTree(body).get("model");
      return model != null && model.isTextual() ? Optional.of(model.asText()) : Optional.empty();
    } catch (java.io.IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static String detail(String text) {
    return "{\"detail\":" + JsonText.quote(text) + "}";
  }

  private static HttpResponse json(int status, String body) {
    return HttpResponse.create().withStatus(status)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body));
  }
}
