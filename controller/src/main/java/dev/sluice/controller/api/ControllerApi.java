package dev.sluice.controller.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.controller.Controller;
import dev.sluice.controller.ControllerSettings;
import dev.sluice.controller.ReplicaLimit;
import dev.sluice.controller.dashboard.DashboardFeed;
import dev.sluice.controller.dashboard.DashboardRoutes;
import dev.sluice.core.cluster.SingletonWatch;
import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.config.ApplicationsConfigParser;
import dev.sluice.core.config.ConfigException;
import dev.sluice.core.config.DeploymentPatch;
import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.BoundedBody;
import dev.sluice.core.http.OpenAiParsingErrors;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethod;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.stream.Materializer;

/**
 * The controller REST API on every {@code control} node (port 8265), talking to the controller
 * singleton through its proxy: {@code GET/PUT /api/applications}, {@code DELETE
 * /api/applications/{app}}, {@code PATCH /api/applications/{app}/deployments/{deployment}},
 * {@code GET /api/config} (the desired state as stored, {@link ConfigView}), {@code GET
 * /api/cluster}, and the dashboard ({@code GET /}, its assets, {@code GET /api/events}: see
 * {@link DashboardRoutes}). JSON; {@code PUT} also takes YAML. Bad input gets 400 naming the
 * field with the config parser's path text, an unknown app or deployment 404, a singleton that
 * does not answer 503 (within {@code api.ask-timeout}); on any error nothing changes. A write is
 * answered once the new desired state is stored on a majority of nodes. Every route but the
 * dashboard's page and assets needs the {@link ApiGuard}'s credential: the API token when one
 * is set, else the cluster token when one is set.
 */
public final class ControllerApi {

  private static final String APPS = "/api/applications";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The largest config body taken. */
  static final int MAX_CONFIG_BYTES = 1 << 20;
  private static final ApiError TOO_LARGE = new ApiError(ApiError.Code.PAYLOAD_TOO_LARGE,
      "The request body is larger than 1 MiB, the most a config may be", null);

  private final ActorSystem<?> system;
  private final ActorRef<Controller.Command> controller;
  private final SingletonWatch controlPlane;
  private final ControllerSettings settings;
  private final ApiGuard guard;
  private final Materializer materializer;
  private final DashboardFeed feed;
  private final DashboardRoutes dashboard;
  private final Consumer<ApplicationsConfig> checks;

  /**
   * @param checks what only the node's wiring can check in a config sent with {@code PUT} (that
   *     its request routers exist and take their kwargs); throws a {@link ConfigException}
   */
  public ControllerApi(ActorSystem<?> system, ActorRef<Controller.Command> controller,
      ControllerSettings settings, Consumer<ApplicationsConfig> checks) {
    this.checks = checks;
    this.system = system;
    this.controller = controller;
    this.controlPlane = SingletonWatch.get(system);
    this.settings = settings;
    this.guard = ApiGuard.fromConfig(system.settings().config());
    this.materializer = Materializer.matFromSystem(system);
    this.feed = new DashboardFeed(system, controller, settings.apiAskTimeout(),
        "dashboard-node-stats");
    this.dashboard = new DashboardRoutes(feed);
  }

  public CompletionStage<ServerBinding> bind() {
    return bind(Optional.empty());
  }

  /** Binds over HTTPS with {@code tls} when given, else plain HTTP. */
  public CompletionStage<ServerBinding> bind(Optional<javax.net.ssl.SSLContext> tls) {
    // HEAD is answered as GET without the body (uptime checks, load balancers).
    var server = Http.get(system).newServerAt(settings.apiHost(), settings.apiPort())
        .withSettings(OpenAiParsingErrors.applyTo(ServerSettings.create(
            system.settings().config()).withTransparentHeadRequests(true)));
    return (tls.isPresent()
        ? server.enableHttps(org.apache.pekko.http.javadsl.ConnectionContext.httpsServer(
            tls.get()))
        : server).bind(this::handle);
  }

  /** Stops the dashboard's refresh (the binding is closed by its owner). */
  public void close() {
    feed.close();
  }

  CompletionStage<HttpResponse> handle(HttpRequest request) {
    String path = request.getUri().path();
    HttpMethod method = request.method();
    if (method.equals(HttpMethods.GET) && dashboard.isAsset(path)) {
      return dashboard.handle(request).orElseThrow();  // the page holds no data: no token
    }
    if (!guard.admits(request.getHeader("authorization").map(HttpHeader::value).orElse(null))) {
      request.discardEntityBytes(materializer);
      return done(HttpResponse.create().withStatus(401)
          .addHeader(RawHeader.create("www-authenticate", "Bearer"))
          .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON,
              guard.refusalJson())));
    }
    if (path.equals("/api/cluster") && method.equals(HttpMethods.GET)) {
      return done(json(200, ClusterReport.json(system)));
    }
    if (path.equals(APPS) && method.equals(HttpMethods.GET)) {
      return status(ConfigView::status);
    }
    if (path.equals("/api/config") && method.equals(HttpMethods.GET)) {
      return status(ConfigView::config);
    }
    if (path.equals(APPS) && method.equals(HttpMethods.PUT)) {
      return withBody(request, body -> {
        ApplicationsConfig config = ApplicationsConfigParser.parse(body);
        ReplicaLimit.check(config, settings.maxReplicasPerDeployment());
        checks.accept(config);
        return write(replyTo -> new Controller.PutApplications(config, replyTo));
      });
    }
    String[] parts = path.split("/", -1);
    if (parts.length == 4 && path.startsWith(APPS + "/") && method.equals(HttpMethods.DELETE)) {
      request.discardEntityBytes(materializer);
      String app = decode(parts[3]);
      return write(replyTo -> new Controller.DeleteApplication(app, replyTo));
    }
    if (parts.length == 6 && path.startsWith(APPS + "/") && parts[4].equals("deployments")
        && method.equals(HttpMethods.PATCH)) {
      String app = decode(parts[3]);
      String deployment = decode(parts[5]);
      return withBody(request, body -> {
        DeploymentPatch patch = ApplicationsConfigParser.parsePatch(body);
        ReplicaLimit.check(patch, settings.maxReplicasPerDeployment());
        return write(replyTo -> new Controller.PatchDeployment(app, deployment, patch, replyTo));
      });
    }
    Optional<CompletionStage<HttpResponse>> page = dashboard.handle(request);
    if (page.isPresent()) {
      request.discardEntityBytes(materializer);
      return page.get();
    }
    request.discardEntityBytes(materializer);
    String allow = allowedMethods(path, parts);
    return done(allow == null
        ? error(new ApiError(ApiError.Code.NOT_FOUND, "Not found: " + path, null))
        : error(new ApiError(ApiError.Code.METHOD_NOT_ALLOWED, "Method " + method.value()
            + " not allowed on " + path, null)).addHeader(RawHeader.create("Allow", allow)));
  }

  /** The methods an API path takes ({@code Allow} of a 405), or null for no such path. */
  private static String allowedMethods(String path, String[] parts) {
    if (path.equals(APPS)) {
      return "GET, HEAD, PUT";
    }
    if (path.equals("/api/events") || path.equals("/api/cluster") || path.equals("/api/config")) {
      return "GET, HEAD";
    }
    if (path.startsWith(APPS + "/") && parts.length == 4) {
      return "DELETE";
    }
    if (path.startsWith(APPS + "/") && parts.length == 6 && parts[4].equals("deployments")) {
      return "PATCH";
    }
    return null;
  }

  /**
   * Reads the body ({@link BoundedBody}: 413 beyond 1 MiB, once read to its end), then runs
   * {@code action}; a bad config is a 400.
   */
  private CompletionStage<HttpResponse> withBody(HttpRequest request,
      Function<String, CompletionStage<HttpResponse>> action) {
    return BoundedBody.read(request, MAX_CONFIG_BYTES,
            settings.apiAskTimeout().multipliedBy(5), materializer)
        .thenComposeAsync(body -> {
          if (body.tooLarge()) {
            return done(error(TOO_LARGE));
          }
          try {
            return action.apply(body.bytes().utf8String());
          } catch (ConfigException e) {
            return done(error(invalid(e.getMessage())));
          }
        }, system.executionContext())
        .exceptionally(failure -> error(new ApiError(ApiError.Code.INVALID_REQUEST,
            "The request body could not be read: " + rootMessage(failure), null)));
  }

  /** A config error names its field: the text before the first ": " is the field's path. */
  private static ApiError invalid(String message) {
    int colon = message.indexOf(": ");
    String param = colon > 0 && !message.substring(0, colon).contains(" ")
        ? message.substring(0, colon) : null;
    return new ApiError(ApiError.Code.INVALID_REQUEST, message, param);
  }

  /**
   * Checks the singleton answers (503 within the ask timeout if not: nothing was changed), sends
   * the write, and answers with the status tree once it is stored and applied. A write the
   * controller does not confirm in time is a 503 that says it may have been stored; a stored
   * write whose status cannot be read then is a 202 that says it was.
   */
  private CompletionStage<HttpResponse> write(
      org.apache.pekko.japi.function.Function<ActorRef<Controller.WriteResult>,
          Controller.Command> message) {
    Duration writeWait = settings.writeTimeout().plus(settings.apiAskTimeout());
    return ask(Controller.GetStatus::new, settings.apiAskTimeout(), true)
        .thenCompose(reachable -> ask(message::apply, writeWait, false)
            .handle((result, failure) -> failure != null
                ? done(unavailable(failure, "the change was sent and may have been stored: "
                    + "GET /api/applications shows what is in effect", writeWait))
                : result.status() != 200
                    ? done(error(new ApiError(result.status() == 404 ? ApiError.Code.NOT_FOUND
                        : ApiError.Code.UNAVAILABLE, result.message(), null)))
                    : stored())
            .thenCompose(answer -> answer))
        .exceptionally(failure -> unavailable(failure, "nothing was changed",
            settings.apiAskTimeout()));
  }

  /** The status tree after a stored write; 202 saying it was stored if it cannot be read now. */
  private CompletionStage<HttpResponse> stored() {
    return ask(Controller.GetStatus::new, settings.apiAskTimeout(), true)
        .thenApply(document -> json(200, ConfigView.status(document.json())))
        .exceptionally(failure -> json(202, JSON.createObjectNode().put("message",
            "The change was stored; its status could not be read within "
                + settings.apiAskTimeout().toMillis() + " ms (the controller is busy, or "
                + "moving): GET /api/applications shows it").toString()));
  }

  /** The controller's status document as {@code view} shows it. */
  private CompletionStage<HttpResponse> status(java.util.function.UnaryOperator<String> view) {
    return ask(Controller.GetStatus::new, settings.apiAskTimeout(), true)
        .thenApply(document -> json(200, view.apply(document.json())))
        .exceptionally(failure -> unavailable(failure, null, settings.apiAskTimeout()));
  }

  /**
   * Asks the controller singleton; fails at once while membership says its node is unreachable
   * or gone. A {@code read} also fails as soon as that happens while it waits (a write is left
   * to its timeout: it may have been stored).
   */
  private <T> CompletionStage<T> ask(
      org.apache.pekko.japi.function.Function<ActorRef<T>, Controller.Command> message,
      Duration timeout, boolean read) {
    Optional<String> gap = controlPlane.unavailable();
    if (gap.isPresent()) {
      return CompletableFuture.failedFuture(new SingletonWatch.SingletonUnreachable(gap.get()));
    }
    java.util.function.Supplier<CompletableFuture<T>> answer = () -> AskPattern.ask(controller,
        message::apply, timeout, system.scheduler()).toCompletableFuture();
    return read ? controlPlane.track(answer) : answer.get();
  }

  /** 503: why the controller did not answer, and what that means for the request (or null). */
  private static HttpResponse unavailable(Throwable failure, String outcome, Duration waited) {
    Throwable cause = failure instanceof java.util.concurrent.CompletionException
        && failure.getCause() != null ? failure.getCause() : failure;
    String why = cause instanceof SingletonWatch.SingletonUnreachable gap
        ? "The controller singleton cannot answer now: " + gap.getMessage()
        : "The controller singleton did not answer in time (within " + waited.toMillis()
            + " ms; it may be busy or moving to another control node, or no control node is up)";
    return error(new ApiError(ApiError.Code.UNAVAILABLE,
        outcome == null ? why : why + "; " + outcome, null));
  }

  private static String decode(String segment) {
    return URLDecoder.decode(segment, StandardCharsets.UTF_8);
  }

  private static String rootMessage(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
  }

  private static HttpResponse error(ApiError error) {
    return json(error.status(), error.toJson());
  }

  private static HttpResponse json(int status, String body) {
    return HttpResponse.create().withStatus(status)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body));
  }

  private static CompletionStage<HttpResponse> done(HttpResponse response) {
    return CompletableFuture.completedFuture(response);
  }
}
