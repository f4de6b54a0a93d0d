package dev.sluice.router.http;

import com.typesafe.config.Config;
import dev.sluice.capacity.CapacityQueue;
import dev.sluice.core.cluster.SingletonWatch;
import dev.sluice.core.http.ClusterToken;
import dev.sluice.core.http.JsonText;
import dev.sluice.core.http.OpenAiParsingErrors;
import dev.sluice.core.http.RequestIds;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.core.openai.ForwardedBody;
import dev.sluice.core.openai.ModelField;
import dev.sluice.router.LLMRouter;
import dev.sluice.router.LocalRouter;
import dev.sluice.router.RouteRequest;
import dev.sluice.router.RouteResult;
import dev.sluice.router.RouterSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.RequestEntity;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.stream.Materializer;

/**
 * {@code POST /internal/route} for external data planes (HAProxy and the like), on the control
 * node. Body: the client's JSON or nothing (its model and prompt are read, unless
 * {@code x-body-truncated} says it was cut: then there is no routing key); {@code x-sluice-exclude}
 * names replicas not to choose (at most 8; a data plane that does not know a replica yet asks
 * again without it). 200 {@code {"host","port","replica_id"}}; 503 {@code {"detail"}}, and when
 * the router found nothing to route to, also {@code "reason"}, in the body and in
 * {@code X-Serve-Reason} ({@link dev.sluice.core.http.ServeReason}: a data plane answers
 * {@code model_not_found} and {@code model_required} as the ingress does, 404 and 400).
 * {@code GET /health} answers {@code {"status":"ok"}}. With a cluster token set, {@code
 * /internal/route} needs it ({@code Authorization: Bearer <token>}; 401 otherwise).
 */
public final class RouterHttpEndpoint {

  private static final int MAX_EXCLUDED = 8;

  private final ActorSystem<?> system;
  private final ActorRef<LLMRouter.Command> router;
  private final RouterSettings settings;
  private final Materializer materializer;

  private final Optional<ActorRef<CapacityQueue.Command>> queue;

  /**
   * @param queue the CapacityQueue: an external data plane cannot carry a lease, so a lease
   *     granted for {@code /internal/route} is released at once (capacity is checked, not held)
   */
  public RouterHttpEndpoint(ActorSystem<?> system, ActorRef<LLMRouter.Command> router,
      RouterSettings settings, Optional<ActorRef<CapacityQueue.Command>> queue) {
    this.system = system;
    this.queue = queue;
    this.router = router;
    this.settings = settings;
    this.materializer = Materializer.matFromSystem(system);
  }

  public CompletionStage<ServerBinding> bind() {
    Config http = system.settings().config().getConfig("sluice.router.http");
    return Http.get(system).newServerAt(settings.httpHost(), settings.httpPort())
        .withSettings(OpenAiParsingErrors.applyTo(ServerSettings.create(system.classicSystem())
            .withBacklog(http.getInt("backlog"))
            .withMaxConnections(http.getInt("max-connections"))))
        .bind(this::handle);
  }

  CompletionStage<HttpResponse> handle(HttpRequest request) {
    String path = request.getUri().path();
    if (path.equals("/health") && request.method().equals(HttpMethods.GET)) {
      request.discardEntityBytes(materializer);
      return CompletableFuture.completedFuture(json(200, "{\"status\":\"ok\"}"));
    }
    if (!settings.clusterToken().admits(
        request.getHeader("authorization").map(HttpHeader::value).orElse(null))) {
      request.discardEntityBytes(materializer);
      return CompletableFuture.completedFuture(HttpResponse.create().withStatus(401)
          .addHeader(org.apache.pekko.http.javadsl.model.headers.RawHeader.create(
              "www-authenticate", "Bearer"))
          .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON,
              ClusterToken.refusalJson())));
    }
    if (!path.equals("/internal/route")) {
      request.discardEntityBytes(materializer);
      return CompletableFuture.completedFuture(json(404, detail("not found: "
          + request.method().value() + " " + path)));
    }
    if (!request.method().equals(HttpMethods.POST)) {
      request.discardEntityBytes(materializer);
      return CompletableFuture.completedFuture(json(405, detail("method not allowed: "
          + request.method().value() + " " + path + " (expected: POST)"))
          .addHeader(org.apache.pekko.http.javadsl.model.headers.RawHeader.create("Allow",
              "POST")));
    }
    Optional<String> session = Optional.empty();
    Optional<String> truncated = Optional.empty();
    Optional<String> app = Optional.empty();
    Optional<String> model = Optional.empty();
    String requestId = null;
    List<String> excluded = new ArrayList<>();
    for (HttpHeader header : request.getHeaders()) {
      if (SluiceHeaders.sameHeader(settings.sessionHeader(), header.name())) {
        session = Optional.of(header.value());
      } else if (header.is(SluiceHeaders.BODY_TRUNCATED)) {
        truncated = Optional.of(header.value());
      } else if (header.is(SluiceHeaders.REQUEST_ID)) {
        requestId = header.value();
      } else if (header.is(SluiceHeaders.APP)) {
        app = Optional.of(header.value());
      } else if (header.is(SluiceHeaders.MODEL)) {
        model = Optional.of(ModelField.capped(header.value()));
      } else if (header.is(SluiceHeaders.EXCLUDE)) {
        Arrays.stream(header.value().split(",")).map(String::trim).filter(id -> !id.isEmpty())
            .forEach(excluded::add);
      }
    }
    if (excluded.size() > MAX_EXCLUDED) {
      request.discardEntityBytes(materializer);
      return CompletableFuture.completedFuture(json(400, detail(SluiceHeaders.EXCLUDE
          + ": " + excluded.size() + " replica ids (at most " + MAX_EXCLUDED + ")")));
    }
    Optional<String> finalSession = session;
    Optional<String> cut = truncated;
    Optional<String> inApp = app;
    Optional<String> byModel = model;
    String id = RequestIds.accept(requestId);
    SingletonWatch controlPlane = SingletonWatch.get(system);
    Optional<String> gap = controlPlane.unavailable();
    if (gap.isPresent()) {
      // A failover is under way: the data plane hears it now, not after the ask timeout.
      request.discardEntityBytes(materializer);
      return CompletableFuture.completedFuture(json(503, detail("router unreachable: "
          + gap.get())));
    }
    // A body that arrived whole (the usual case: empty, or small) is used as it is; only a
    // streamed one is gathered, which costs a stream materialization per request.
    RequestEntity entity = request.entity();
    CompletionStage<byte[]> bytes = entity instanceof HttpEntity.Strict whole
        && whole.getData().size() <= settings.maxBodyBytes()
        ? CompletableFuture.completedFuture(whole.getData().toArray())
        : entity.toStrict(settings.askTimeout().toMillis(), settings.maxBodyBytes(), materializer)
            .thenApply(strict -> strict.getData().toArray());
    return bytes
        .thenCompose(data -> controlPlane.track(() -> AskPattern.<LLMRouter.Command,
            RouteResult>ask(LocalRouter.get(system).or(router), replyTo -> new LLMRouter.Route(
                new RouteRequest(id, finalSession, body(data, cut),
                    settings.askTimeout().toMillis() * 9 / 10, excluded, byModel, inApp),
                replyTo),
            settings.askTimeout(), system.scheduler()).toCompletableFuture()))
        .thenApply(this::answer)
        .exceptionally(failure -> json(503, detail("router unreachable: " + failure)));
  }

  private HttpResponse answer(RouteResult result) {
    if (result instanceof RouteResult.Routed routed) {
      routed.leaseId().ifPresent(lease ->
          queue.ifPresent(q -> q.tell(new CapacityQueue.Release(lease))));
      var replica = routed.replica();
      return json(200, "{\"host\":" + JsonText.quote(replica.host()) + ",\"port\":"
          + replica.port() + ",\"replica_id\":" + JsonText.quote(replica.id().toString()) + "}");
    }
    RouteResult.NotRouted notRouted = (RouteResult.NotRouted) result;
    String reason = notRouted.reason().value();
    return json(503, "{\"detail\":" + JsonText.quote(notRouted.detail()) + ",\"reason\":"
        + JsonText.quote(reason) + "}").addHeader(HttpHeader.parse(SluiceHeaders.SERVE_REASON,
        reason));
  }

  /**
   * The forwarded body: none when empty; cut when {@code x-body-truncated: <sent>/<total>} says so
   * (a malformed header also counts as cut: a body-aware policy then sees no routing key).
   */
  static Optional<ForwardedBody> body(byte[] bytes, Optional<String> truncated) {
    if (bytes.length == 0) {
      return Optional.empty();
    }
    if (truncated.isEmpty()) {
      return Optional.of(ForwardedBody.whole(bytes));
    }
    long total = -1;
    String value = truncated.get();
    int slash = value.indexOf('/');
    try {
      total = slash < 0 ? -1 : Long.parseLong(value.substring(slash + 1).trim());
    } catch (NumberFormatException e) {
      total = -1;
    }
    return Optional.of(new ForwardedBody(bytes, total == bytes.length ? -1 : total));
  }

  private static String detail(String text) {
    return "{\"detail\":" + JsonText.quote(text) + "}";
  }

  private static HttpResponse json(int status, String body) {
    return HttpResponse.create().withStatus(status)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body));
  }
}
