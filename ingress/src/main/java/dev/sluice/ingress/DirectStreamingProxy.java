package dev.sluice.ingress;

import dev.sluice.capacity.CapacityQueue;
import dev.sluice.core.Failures;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.router.LLMRouter;
import dev.sluice.router.RouteRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.ResponseEntity;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.settings.ClientConnectionSettings;
import org.apache.pekko.http.javadsl.settings.ConnectionPoolSettings;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.StreamTcpException;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * The direct-streaming data path: ask the router singleton for a replica (the only control-path
 * step), then send the original request to that replica's own endpoint over a pooled keep-alive
 * connection and stream status, headers and body back unchanged. Per chunk there is no parsing,
 * no allocation beyond the byte string and no actor message.
 */
final class DirectStreamingProxy {

  /** Request headers that describe the client connection, not the request (RFC 9110 §7.6.1). */
  private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive",
      "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
      "transfer-encoding", "upgrade", "host", "content-length", "content-type",
      "timeout-access", "remote-address", "raw-request-uri", "tls-session-info");
  /** How long an answer may wait to be rendered before its lease is released anyway. */
  private static final java.time.Duration UNRENDERED_LEASE_TIMEOUT = java.time.Duration.ofSeconds(2);

  /** Response headers Pekko renders itself. */
  private static final Set<String> RENDERED = Set.of("date", "server", "content-length",
      "content-type", "transfer-encoding", "connection", "keep-alive");

  private final ActorSystem<?> system;
  private final DirectRouting routing;
  private final IngressSettings settings;
  private final ConnectionPoolSettings poolSettings;
  private final Http http;
  private final Materializer materializer;
  /**
   * Every continuation runs here: Pekko's CompletionStages run even non-async continuations
   * on the common pool, which on a 2-core machine starts a new thread per call.
   */
  private final Executor executor;

  DirectStreamingProxy(ActorSystem<?> system, ActorRef<LLMRouter.Command> router,
      ReplicaSetView view, IngressSettings settings,
      Optional<ActorRef<CapacityQueue.Command>> queue) {
    this.system = system;
    this.routing = new DirectRouting(system, router, view, settings, queue);
    this.settings = settings;
    this.http = Http.get(system);
    this.materializer = Materializer.matFromSystem(system);
    this.executor = system.executionContext();
    this.poolSettings = ConnectionPoolSettings.create(system.classicSystem())
        .withConnectionSettings(ClientConnectionSettings.create(system.classicSystem())
            .withConnectingTimeout(toScala(settings.upstreamConnectTimeout()))
            .withIdleTimeout(toScala(settings.upstreamIdleTimeout())))
        .withMaxConnections(settings.maxConnectionsPerReplica())
        .withMaxOpenRequests(settings.maxOpenRequestsPerReplica())
        .withPipeliningLimit(1)
        .withMaxRetries(0);
  }

  private static scala.concurrent.duration.FiniteDuration toScala(java.time.Duration duration) {
    return scala.concurrent.duration.FiniteDuration.apply(
        duration.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  CompletionStage<HttpResponse> forward(HttpRequest request, String requestId) {
    Optional<String> session = Optional.empty();
    for (HttpHeader header : request.getHeaders()) {
      if (SluiceHeaders.sameHeader(settings.sessionHeader(), header.name())) {
        session = Optional.of(header.value());
        break;
      }
    }
    if (!settings.forwardBody()) {
      return route(request, requestId,
          RouteRequest.of(requestId, session).withBudget(routing.budgetMillis()));
    }
    Optional<String> sessionId = session;
    return BodyPrefix.read(request.entity(), settings.forwardBodyLimit(), materializer)
        .thenComposeAsync(body -> route(request.withEntity(body.entity()), requestId,
            new RouteRequest(requestId, sessionId, Optional.of(body.forRouter()),
                routing.budgetMillis())), executor)
        .exceptionallyAsync(failure -> ErrorResponses.of(new ApiError(ApiError.Code.INVALID_REQUEST,
            "Could not read the request body: " + Failures.cause(failure).getMessage(), null),
            requestId), executor);
  }

  private CompletionStage<HttpResponse> route(
      HttpRequest request, String requestId, RouteRequest routeRequest) {
    return routing.route(routeRequest).thenComposeAsync(outcome -> {
      if (outcome instanceof DirectRouting.Refused refused) {
        request.discardEntityBytes(system);
        return CompletableFuture.completedFuture(refused.response());
      }
      DirectRouting.Chosen chosen = (DirectRouting.Chosen) outcome;
      return dispatch(request, requestId, chosen.replica(), chosen.lease());
    }, executor);
  }

  private CompletionStage<HttpResponse> dispatch(
      HttpRequest request, String requestId, ReplicaInfo replica, LeaseRelease lease) {
    String replicaId = replica.id().toString();
    HttpRequest upstream = upstreamRequest(request, requestId, replica);
    return http.singleRequest(upstream, http.defaultClientHttpsContext(), poolSettings,
            system.classicSystem().log())
        .handleAsync((response, failure) -> {
          if (failure != null) {
            lease.release();
            return upstreamFailure(failure, requestId, replicaId);
          }
          return relay(response, requestId, replicaId, lease);
        }, executor);
  }

  private HttpRequest upstreamRequest(HttpRequest request, String requestId, ReplicaInfo replica) {
    List<HttpHeader> headers = new ArrayList<>();
    for (HttpHeader header : request.getHeaders()) {
      String name = header.lowercaseName();
      if (!HOP_BY_HOP.contains(name) && !name.equals(SluiceHeaders.REQUEST_ID)) {
        headers.add(header);
      }
    }
    headers.add(RawHeader.create(SluiceHeaders.REQUEST_ID, requestId));
    String uri = "http://" + replica.host() + ":" + replica.port()
        + request.getUri().getPathString()
        + request.getUri().rawQueryString().map(q -> "?" + q).orElse("");
    return HttpRequest.create(uri)
        .withMethod(request.method())
        .withProtocol(request.protocol())
        .addHeaders(headers)
        .withEntity(request.entity());
  }

  private HttpResponse relay(
      HttpResponse response, String requestId, String replicaId, LeaseRelease lease) {
    List<HttpHeader> headers = new ArrayList<>();
    for (HttpHeader header : response.getHeaders()) {
      if (!RENDERED.contains(header.lowercaseName())) {
        headers.add(header);
      }
    }
    headers.add(RawHeader.create(SluiceHeaders.REPLICA, replicaId));
    headers.add(RawHeader.create(SluiceHeaders.REQUEST_ID, requestId));
    return HttpResponse.create()
        .withStatus(response.status())
        .withHeaders(headers)
        .withEntity(withLease(response, lease));
  }

  /**
   * Ties the lease to the answer: released when the body ends, fails or the client goes away
   * (or at once for a complete body); kept until the TTL when the replica rejected the request.
   */
  private ResponseEntity withLease(HttpResponse response, LeaseRelease lease) {
    ResponseEntity entity = response.entity();
    if (!lease.holdsLease()) {
      return rewrap(entity, entity.getDataBytes());
    }
    if (response.status().intValue() == 503 && response.getHeader(SluiceHeaders.SERVE_REASON)
        .map(h -> h.value().equals(ServeReason.REPLICA_AT_CAPACITY.value())).orElse(false)) {
      lease.keepUntilTtl();
      return rewrap(entity, entity.getDataBytes());
    }
    if (entity.isStrict()) {
      lease.release();
      return entity;
    }
    AtomicBoolean materialized = new AtomicBoolean();
    // An answer whose client left before it was rendered is never materialized.
    system.scheduler().scheduleOnce(UNRENDERED_LEASE_TIMEOUT, () -> {
      if (!materialized.get()) {
        lease.release();
      }
    }, system.executionContext());
    return rewrap(entity, entity.getDataBytes().watchTermination((mat, done) -> {
      materialized.set(true);
      done.whenCompleteAsync((d, failure) -> lease.release(), executor);
      return mat;
    }));
  }

  /**
   * A streamed upstream entity is re-wrapped as a new entity over its data bytes: passing the
   * upstream's chunked entity through makes Pekko cancel it at the last chunk, and the pool then
   * drops a connection per request.
   */
  private static ResponseEntity rewrap(ResponseEntity entity, Source<ByteString, ?> data) {
    if (entity.isStrict()) {
      return entity;
    }
    if (entity.getContentLengthOption().isPresent()) {
      return HttpEntities.create(entity.getContentType(),
          entity.getContentLengthOption().getAsLong(), data);
    }
    return HttpEntities.createChunked(entity.getContentType(), data);
  }

  private HttpResponse upstreamFailure(Throwable failure, String requestId, String replicaId) {
    Throwable cause = Failures.cause(failure);
    if (cause instanceof StreamTcpException) {
      return FailClosed.response(ServeReason.REPLICA_UNREACHABLE, requestId,
          "replica " + replicaId + ": " + cause.getMessage().toLowerCase(Locale.ROOT));
    }
    system.log().warn("Upstream request {} to {} failed: {}", requestId, replicaId, cause.toString());
    return ErrorResponses.upstream(ApiError.Code.UPSTREAM_FAILED,
        "Replica " + replicaId + " failed: " + cause.getMessage(), requestId, replicaId);
  }
}
