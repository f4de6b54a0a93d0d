package dev.sluice.ingress;

import dev.sluice.capacity.CapacityQueue;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.JsonText;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.router.LLMRouter;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.japi.function.Function;

/**
 * The OpenAI-compatible front door: {@code POST /v1/chat/completions} and {@code POST
 * /v1/completions} go to a replica on the direct-streaming path; {@code GET /v1/models}, {@code GET
 * /v1/models/{id}}, {@code GET /-/healthz} and {@code GET /-/routes} are answered here from the
 * replica sets. Anything else is a 404 (or 405) in the OpenAI error shape.
 */
public final class IngressHandler implements Function<HttpRequest, CompletionStage<HttpResponse>> {

  private static final String MODELS = "/v1/models";

  private final ActorSystem<?> system;
  private final ReplicaSetView view;
  private final DirectStreamingProxy proxy;
  private final RelayedPath relayed;
  private final boolean direct;

  public IngressHandler(ActorSystem<?> system, ActorRef<LLMRouter.Command> router,
      ReplicaSetView view, IngressSettings settings,
      Optional<ActorRef<CapacityQueue.Command>> queue) {
    this.system = system;
    this.view = view;
    this.proxy = new DirectStreamingProxy(system, router, view, settings, queue);
    this.relayed = new RelayedPath(system, router, view, settings);
    this.direct = settings.directStreaming();
  }

  @Override
  public CompletionStage<HttpResponse> apply(HttpRequest request) {
    String path = request.getUri().path();
    String requestId = requestId(request.getHeader(SluiceHeaders.REQUEST_ID)
        .map(HttpHeader::value).orElse(null));
    boolean completion = path.equals("/v1/chat/completions") || path.equals("/v1/completions");
    if (completion && request.method().equals(HttpMethods.POST)) {
      return direct ? proxy.forward(request, requestId)
          : relayed.forward(request, requestId, path.equals("/v1/completions")
              ? CompletionRequest.Kind.COMPLETION : CompletionRequest.Kind.CHAT);
    }
    request.discardEntityBytes(system);
    HttpResponse response;
    if (completion || (isLocalPath(path) && !request.method().equals(HttpMethods.GET))) {
      response = ErrorResponses.of(new ApiError(ApiError.Code.METHOD_NOT_ALLOWED,
          "Method " + request.method().value() + " not allowed on " + path, null));
    } else if (path.equals(MODELS)) {
      response = json(ModelCatalog.list(view));
    } else if (path.startsWith(MODELS + "/")) {
      String id = path.substring(MODELS.length() + 1);
      response = ModelCatalog.find(view, id).map(IngressHandler::json)
          .orElseGet(() -> ErrorResponses.of(new ApiError(ApiError.Code.MODEL_NOT_FOUND,
              "The model `" + id + "` does not exist", "model")));
    } else if (path.equals("/-/healthz")) {
      response = json("{\"status\":\"ok\"}");
    } else if (path.equals("/-/routes")) {
      response = json(routes());
    } else {
      response = notFound(path);
    }
    return CompletableFuture.completedFuture(
        response.addHeader(RawHeader.create(SluiceHeaders.REQUEST_ID, requestId)));
  }

  /** The client's {@code x-request-id} (null or blank: not sent), else a new UUID. */
  static String requestId(String sent) {
    return sent == null || sent.isBlank() ? UUID.randomUUID().toString() : sent;
  }

  private static boolean isLocalPath(String path) {
    return path.equals(MODELS) || path.startsWith(MODELS + "/") || path.equals("/-/healthz")
        || path.equals("/-/routes");
  }

  /** Route prefix to application name, like Ray Serve's {@code /-/routes}. */
  private String routes() {
    Map<String, String> routes = new TreeMap<>();
    for (ReplicaSet set : view.all()) {
      routes.put(set.routePrefix(), set.deployment().app());
    }
    StringBuilder json = new StringBuilder("{");
    routes.forEach((prefix, app) -> {
      if (json.length() > 1) {
        json.append(',');
      }
      json.append(JsonText.quote(prefix)).append(':').append(JsonText.quote(app));
    });
    return json.append('}').toString();
  }

  private static HttpResponse notFound(String path) {
    return ErrorResponses.of(new ApiError(ApiError.Code.NOT_FOUND, "Not found: " + path, null));
  }

  private static HttpResponse json(String body) {
    return HttpResponse.create().withStatus(200)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body));
  }

}
