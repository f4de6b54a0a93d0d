package dev.sluice.replica.http;

import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.core.openai.CompletionRequestParser;
import dev.sluice.core.openai.ModelList;

import dev.sluice.core.Failures;
import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.BoundedBody;
import dev.sluice.core.http.ClusterToken;
import dev.sluice.core.http.ContentCoding;
import dev.sluice.core.http.RequestIds;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.replica.engine.Engine;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.headers.Connection;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.concurrent.ExecutionContextExecutor;

/**
 * The replica's own OpenAI endpoint: {@code POST /v1/chat/completions}, {@code POST
 * /v1/completions}, {@code GET /v1/models}, {@code GET /-/healthz} (also as vLLM's {@code
 * /health}, so that {@code sluice engine-sim} answers an {@code openai-process} engine's default
 * health path), {@code GET /-/stats}. Takes a slot before reading the body; frees it when the
 * answer ends, fails or the client goes away.
 * With a cluster token set ({@code sluice.core.cluster-token}), every route but the health path
 * needs it: clients reach replicas through an ingress, never around it.
 */
public final class ReplicaHttpHandler
    implements org.apache.pekko.japi.function.Function<HttpRequest, CompletionStage<HttpResponse>> {

  /** Internal: slot reservations for the router's choose/dispatch path. */
  public static final String RESERVATIONS = "/-/reservations";
  /**
   * Simulated engine only: {@code POST /-/sim/fault?mode=unhealthy|hang|none} makes the engine
   * report itself unhealthy, or its health check hang, or heals it (tests of health checking).
   */
  public static final String SIM_FAULT = "/-/sim/fault";
  /**
   * The engine's statistics under vLLM's metric names, as a vLLM server serves them: what a
   * replica running {@code sluice engine-sim} as an {@code openai-process} engine scrapes.
   */
  public static final String ENGINE_METRICS = "/metrics";
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaHttpHandler.class);
  /** How often expired reservations are looked for, while some are held. */
  private static final Duration SWEEP_EVERY = Duration.ofSeconds(1);

  private final ReplicaEndpointSettings settings;
  private final Engine engine;
  private final Slots slots;
  private final Reservations reservations;
  private final RelayHandler relay;
  /** A sweep of expired reservations is scheduled (only while some are held). */
  private final AtomicBoolean sweepPending = new AtomicBoolean();
  private volatile org.apache.pekko.actor.Cancellable sweep;
  private volatile boolean closed;
  private final CompletionRequestParser parser;
  private final Materializer materializer;
  private final ActorSystem<?> system;
  private final ExecutionContextExecutor executor;
  /** {@code x-sluice-served-by}, unless the endpoint has no replica id (engine-sim). */
  private final List<HttpHeader> servedBy;
  private final ReplicaCounters counters = new ReplicaCounters();
  private final ClusterToken clusterToken;
  private volatile boolean draining;

  public ReplicaHttpHandler(ActorSystem<?> system, ReplicaEndpointSettings settings, Engine engine) {
    this.system = system;
    this.settings = settings;
    this.engine = engine;
    this.slots = new Slots(settings.maxOngoingRequests());
    this.reservations = new Reservations(slots, settings.reservationTimeout());
    this.parser = new CompletionRequestParser(
        settings.modelId(), settings.defaultMaxTokens(), settings.maxModelLen());
    this.materializer = Materializer.matFromSystem(system);
    this.executor = system.executionContext();
    this.servedBy = settings.replicaId().isEmpty() ? List.of()
        : List.of(RawHeader.create(SluiceHeaders.SERVED_BY, settings.replicaId()));
    this.clusterToken = ClusterToken.of(system);
    this.relay = new RelayHandler(settings.replicaId(), engine, slots, reservations, parser,
        materializer, () -> draining);
  }

  /** Stops the reservation expiry sweep; the server binding is closed by its owner. */
  public void close() {
    closed = true;
    var pending = sweep;
    if (pending != null) {
      pending.cancel();
    }
  }

  /**
   * Releases the reservations nobody consumed in time, once a second while any are held: no
   * timer at all otherwise (a replica that is never reserved, the direct path's case, does not
   * wake its node every second).
   */
  private void sweepLater() {
    if (!closed && sweepPending.compareAndSet(false, true)) {
      sweep = system.scheduler().scheduleOnce(SWEEP_EVERY, () -> {
        sweepPending.set(false);
        reservations.expire(System.nanoTime());
        if (reservations.outstanding() > 0) {
          sweepLater();
        }
      }, executor);
    }
  }

  /** The relayed path into the same slots and engine. */
  public RelayHandler relay() {
    return relay;
  }

  public Reservations reservations() {
    return reservations;
  }

  /** The engine behind this endpoint. */
  public Engine engine() {
    return engine;
  }

  public Slots slots() {
    return slots;
  }

  /** The largest request body this endpoint takes. */
  public long maxRequestBytes() {
    return settings.maxRequestBytes();
  }

  public ReplicaCounters counters() {
    return counters;
  }

  /** Refuse new requests from now on; ongoing ones finish. */
  public void startDraining() {
    draining = true;
  }

  @Override
  public CompletionStage<HttpResponse> apply(HttpRequest request) {
    String path = request.getUri().path();
    boolean post = request.method().equals(HttpMethods.POST);
    boolean get = request.method().equals(HttpMethods.GET);
    boolean probe = get && (health(path) || path.equals("/-/stats")
        || path.equals(ENGINE_METRICS));
    if (!probe) {
      counters.requests.increment();
    }
    if (!(get && health(path)) && !clusterToken.admits(
        request.getHeader("authorization").map(HttpHeader::value).orElse(null))) {
      request.discardEntityBytes(materializer);
      return done(json(401, ClusterToken.refusalJson())
          .addHeader(RawHeader.create("www-authenticate", "Bearer")));
    }
    if (post && path.equals("/v1/chat/completions")) {
      return completion(request, CompletionRequest.Kind.CHAT);
    }
    if (post && path.equals("/v1/completions")) {
      return completion(request, CompletionRequest.Kind.COMPLETION);
    }
    request.discardEntityBytes(materializer);
    if (post && path.equals(RESERVATIONS)) {
      return done(reserve());
    }
    if (request.method().equals(HttpMethods.DELETE) && path.startsWith(RESERVATIONS + "/")) {
      reservations.release(path.substring(RESERVATIONS.length() + 1));
      return done(HttpResponse.create().withStatus(204));
    }
    if (get && path.equals("/v1/models")) {
      return done(json(200, ModelList.json(List.of(settings.modelId()))));
    }
    if (get && health(path)) {
      if (draining) {
        return done(json(503, "{\"status\":\"draining\"}"));
      }
      return engine.healthy().thenApply(healthy -> healthy
          ? json(200, "{\"status\":\"ok\"}")
          : json(503, "{\"status\":\"unhealthy\",\"detail\":\"the engine reports itself "
              + "unhealthy\"}"));
    }
    if (post && path.equals(SIM_FAULT)) {
      return done(injectFault(request.getUri().query().get("mode").orElse("")));
    }
    if (get && path.equals(ENGINE_METRICS)) {
      return done(HttpResponse.create().withStatus(200).withEntity(HttpEntities.create(
          ContentTypes.TEXT_PLAIN_UTF8, EngineMetricsText.render(settings.modelId(),
              engine.stats()))));
    }
    if (get && path.equals("/-/stats")) {
      return done(json(200, stats()));
    }
    String allow = allowedMethods(path);
    return done(allow == null
        ? error(new ApiError(ApiError.Code.NOT_FOUND, "Not found: " + path, null))
        : error(new ApiError(ApiError.Code.METHOD_NOT_ALLOWED,
            "Method " + request.method().value() + " not allowed on " + path, null))
            .addHeader(RawHeader.create("Allow", allow)));
  }

  /** The health path: Sluice's own, or vLLM's (an {@code openai-process} engine's default). */
  private static boolean health(String path) {
    return path.equals("/-/healthz") || path.equals("/health");
  }

  /** The methods a path takes ({@code Allow} of a 405; HEAD is GET), or null for none. */
  private static String allowedMethods(String path) {
    if (path.equals("/v1/chat/completions") || path.equals("/v1/completions")
        || path.equals(RESERVATIONS) || path.equals(SIM_FAULT)) {
      return "POST";
    }
    if (path.equals("/v1/models") || health(path) || path.equals("/-/stats")
        || path.equals(ENGINE_METRICS)) {
      return "GET, HEAD";
    }
    return path.startsWith(RESERVATIONS + "/") ? "DELETE" : null;
  }

  private CompletionStage<HttpResponse> completion(
      HttpRequest request, CompletionRequest.Kind kind) {
    if (draining) {
      request.discardEntityBytes(materializer);
      return done(refuse(ServeReason.REPLICA_DRAINING, "Replica is draining"));
    }
    Slots.Slot slot = request.getHeader(SluiceHeaders.SLOT_TOKEN)
        .flatMap(token -> reservations.consume(token.value()))
        .orElseGet(slots::tryAcquire);
    if (slot == null) {
      counters.rejected.increment();
      request.discardEntityBytes(materializer);
      return done(refuse(ServeReason.REPLICA_AT_CAPACITY, "Replica at capacity ("
          + slots.limit() + " ongoing requests)"));
    }
    Optional<ApiError> coding = ContentCoding.refusal(request.getHeaders(), HttpHeader::name,
        HttpHeader::value);
    if (coding.isPresent()) {  // the reservation or slot is given back, never held
      slot.release();
      request.discardEntityBytes(materializer);
      return done(error(coding.get())
          .addHeader(RawHeader.create(ContentCoding.ACCEPT_HEADER, ContentCoding.IDENTITY)));
    }
    // Safe ids only (RequestIds): the id goes into the answer and the log, and a client behind
    // HAProxy reaches this endpoint without the ingress's check.
    String requestId = RequestIds.accept(request.getHeader(SluiceHeaders.REQUEST_ID)
        .map(HttpHeader::value).orElse(null));
    // No hand-off on the way to the answer: a body Pekko already holds whole (one that came with
    // its head) is parsed, and a stream's answer returned, on the connection's own thread, which
    // renders it at once; each hand-off to a pool thread is one more thread to wake before the
    // first token. A body still arriving is parsed on the thread that completes its read.
    return BoundedBody.read(request, settings.maxRequestBytes(),
            settings.bodyTimeout(), materializer)
        .thenCompose(body -> {
          if (body.tooLarge()) {
            throw body.tooLargeError();
          }
          CompletionRequest parsed = parser.parse(kind, body.bytes().toArray());
          return parsed.stream()
              ? stream(parsed, requestId, slot)
              : whole(parsed, requestId, slot);
        })
        .exceptionally(failure -> {
          slot.release();
          ApiError error = unwrap(failure, requestId);
          // The rest of a body that timed out may still come: the connection ends here.
          return error.code() == ApiError.Code.REQUEST_TIMEOUT
              ? error(error).addHeader(Connection.create("close")) : error(error);
        });
  }

  private CompletionStage<HttpResponse> stream(
      CompletionRequest request, String requestId, Slots.Slot slot) {
    AtomicBoolean materialized = new AtomicBoolean();
    // The slot is free before the answer's last chunk goes out (see StreamEnd).
    Source<ByteString, NotUsed> body = CompletionAnswer.of(request, requestId, engine).stream()
        .via(new StreamEnd<>(() -> materialized.set(true), slot::release));
    // A response whose client vanished before it was rendered is never materialized: free the slot.
    system.scheduler().scheduleOnce(settings.unconsumedResponseTimeout(), () -> {
      if (!materialized.get()) {
        slot.release();
      }
    }, executor);
    counters.streams.increment();
    return done(HttpResponse.create()
        .withStatus(200)
        .addHeaders(servedBy)
        .addHeader(RawHeader.create("Cache-Control", "no-cache"))
        .withEntity(
            HttpEntities.createChunked(MediaTypes.TEXT_EVENT_STREAM.toContentType(), body)));
  }

  private CompletionStage<HttpResponse> whole(
      CompletionRequest request, String requestId, Slots.Slot slot) {
    return CompletionAnswer.of(request, requestId, engine).whole(materializer)
        .thenApplyAsync(body -> {
          slot.release();
          return json(200, body).addHeaders(servedBy);
        }, executor);
  }

  /** {@code POST /-/reservations}: 200 with a token and the true ongoing count, or 503. */
  private HttpResponse reserve() {
    if (draining) {
      return refuse(ServeReason.REPLICA_DRAINING, "Replica is draining");
    }
    var reserved = reservations.reserve();
    reserved.ifPresent(r -> sweepLater());
    return reserved
        .map(r -> json(200, "{\"token\":\"" + r.token() + "\",\"ongoing\":" + r.ongoing() + "}"))
        .orElseGet(() -> json(503, "{\"ongoing\":" + slots.ongoing() + "}").addHeader(
            RawHeader.create(SluiceHeaders.SERVE_REASON,
                ServeReason.REPLICA_AT_CAPACITY.value())));
  }

  private HttpResponse injectFault(String mode) {
    Engine inner = engine instanceof dev.sluice.replica.engine.MeteredEngine metered
        ? metered.delegate() : engine;
    if (!(inner instanceof dev.sluice.replica.engine.SimulatedEngine simulated)) {
      return error(new ApiError(ApiError.Code.NOT_FOUND,
          "Faults can be injected into the simulated engine only", null));
    }
    dev.sluice.replica.engine.SimulatedEngine.Fault fault;
    try {
      fault = dev.sluice.replica.engine.SimulatedEngine.Fault.valueOf(
          mode.toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return error(ApiError.invalid("mode", "mode: '" + mode.substring(0,
          Math.min(mode.length(), 40)) + "' (expected: unhealthy, hang or none)"));
    }
    simulated.inject(fault);
    return json(200, "{\"fault\":\"" + fault.name().toLowerCase(java.util.Locale.ROOT) + "\"}");
  }

  private String stats() {
    var engineStats = engine.stats();
    return "{\"replica_id\":\"" + settings.replicaId() + "\",\"ongoing\":" + slots.ongoing()
        + ",\"max_ongoing_requests\":" + slots.limit()
        + ",\"peak_demand\":" + slots.peakDemand()
        + ",\"draining\":" + draining
        + ",\"reservations\":" + reservations.outstanding()
        + ",\"accepted_connections\":" + counters.connections.sum()
        + ",\"requests\":" + counters.requests.sum()
        + ",\"streams\":" + counters.streams.sum()
        + ",\"rejected\":" + counters.rejected.sum()
        + ",\"engine\":{\"running\":" + engineStats.running()
        + ",\"waiting\":" + engineStats.waiting()
        + ",\"generated_tokens\":" + engineStats.generatedTokens()
        + ",\"aborted\":" + engineStats.aborted()
        + ",\"prefix_cache_hit_ratio\":" + engineStats.prefixCacheHitRatio()
        + ",\"kv_cache_usage\":" + engineStats.kvCacheUsage() + "}}";
  }

  private HttpResponse refuse(ServeReason reason, String message) {
    return error(new ApiError(ApiError.Code.OVERLOADED, message, null))
        .addHeader(RawHeader.create(SluiceHeaders.SERVE_REASON, reason.value()));
  }

  private HttpResponse error(ApiError error) {
    return json(error.status(), error.toJson()).addHeaders(servedBy);
  }

  /** The client's error for a failed request; an unexpected failure is logged, not shown. */
  private ApiError unwrap(Throwable failure, String requestId) {
    Throwable cause = Failures.cause(failure);
    if (cause instanceof ApiError apiError) {
      return apiError;
    }
    if (cause instanceof TimeoutException) {
      return new ApiError(ApiError.Code.REQUEST_TIMEOUT, "The request body did not arrive within "
          + settings.bodyTimeout().toSeconds() + " s", null);
    }
    String incident = RequestIds.newId();
    LOG.error("Request {} failed in replica {} (incident {})", requestId, settings.replicaId(),
        incident, cause);
    return new ApiError(ApiError.Code.INTERNAL, "The replica failed on this request (incident "
        + incident + ")", null);
  }

  private static HttpResponse json(int status, String body) {
    return HttpResponse.create().withStatus(status)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body));
  }

  private static CompletionStage<HttpResponse> done(HttpResponse response) {
    return CompletableFuture.completedFuture(response);
  }

}
