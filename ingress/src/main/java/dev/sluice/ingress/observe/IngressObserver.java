package dev.sluice.ingress.observe;

import com.typesafe.config.Config;
import dev.sluice.core.metrics.SluiceMetrics;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ingress's per-request observations for one data path ({@code direct}: the splice;
 * {@code relayed}: Pekko HTTP): {@code sluice_ingress_*} metrics and the {@link RequestLog}.
 * Labels are bounded: the route is one of the OpenAI endpoints or {@code other}, never a request
 * or session id. Everything here is cheap on the request's thread (counter and histogram updates,
 * one queue offer); formatting happens on the log's own thread.
 */
public final class IngressObserver {

  static final double[] TTFT_SECONDS = {0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3,
      0.5, 0.75, 1, 2.5, 5, 10};
  static final double[] DURATION_SECONDS = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
      300};
  static final double[] ROUTE_SECONDS = {5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01,
      0.05, 0.25, 1, 5};
  /** The routes requests are counted by; anything else is {@code other}. */
  static final List<String> ROUTES = List.of("/v1/chat/completions", "/v1/completions",
      "/v1/models", "/-/healthz");

  private record Outcome(String route, int status, String reason) {}

  /** Reason labels: Sluice's own reasons; anything else a replica sent counts as "other". */
  private static final java.util.Set<String> REASONS = java.util.Arrays.stream(
      dev.sluice.core.http.ServeReason.values()).map(dev.sluice.core.http.ServeReason::value)
      .collect(java.util.stream.Collectors.toUnmodifiableSet());

  private record RouteMetrics(DistributionDataPoint ttft, DistributionDataPoint duration) {}

  private final String dataPath;
  private final boolean metricsOn;
  private final RequestLog log;
  private final Counter requests;
  private final Map<Outcome, CounterDataPoint> outcomes = new ConcurrentHashMap<>();
  private final Map<String, RouteMetrics> routes = new ConcurrentHashMap<>();
  private final DistributionDataPoint routeLatency;
  private final GaugeDataPoint streamsOpen;
  private final CounterDataPoint bytes;
  private final CounterDataPoint tokens;
  private final CounterDataPoint connects;
  private final CounterDataPoint reuses;
  private final CounterDataPoint retries;

  private IngressObserver(SluiceMetrics metrics, String dataPath, boolean metricsOn,
      boolean logOn, boolean json, int logQueue) {
    this.dataPath = dataPath;
    this.metricsOn = metricsOn;
    this.requests = metrics.counter("ingress_requests_total", "Requests the ingress answered, "
        + "by route, data path, status and X-Serve-Reason (none when the answer had none).",
        "route", "data_path", "status", "reason");
    Histogram ttft = metrics.histogram("ingress_ttft_seconds", "Time from a request's arrival "
        + "to its first token: the first streamed chunk with text, or the first byte of a whole "
        + "answer (successful answers).", TTFT_SECONDS,
        "route", "data_path");
    Histogram duration = metrics.histogram("ingress_request_duration_seconds", "Time from a "
        + "request's arrival to the last byte of its answer.", DURATION_SECONDS,
        "route", "data_path");
    for (String route : ROUTES) {
      routes.put(route, new RouteMetrics(ttft.labelValues(route, dataPath),
          duration.labelValues(route, dataPath)));
    }
    routes.put("other", new RouteMetrics(ttft.labelValues("other", dataPath),
        duration.labelValues("other", dataPath)));
    this.routeLatency = metrics.histogram("ingress_route_seconds", "Time from a request's "
        + "arrival to the router's pick (or refusal).", ROUTE_SECONDS, "data_path")
        .labelValues(dataPath);
    this.streamsOpen = metrics.gauge("ingress_streams_open",
        "Streamed (SSE) answers in flight.", "data_path").labelValues(dataPath);
    this.bytes = metrics.counter("ingress_delivered_bytes_total",
        "Answer body bytes handed to clients.", "data_path").labelValues(dataPath);
    this.tokens = metrics.counter("ingress_delivered_tokens_total",
        "Tokens streamed to clients (SSE chunks carrying a completion delta).", "data_path")
        .labelValues(dataPath);
    Counter upstream = metrics.counter("ingress_upstream_connections_total", "Connections to "
        + "replicas the splice used, by outcome: connect (opened), reuse (kept alive) or retry "
        + "(a kept-alive connection the replica had closed: sent again on a new one).",
        "data_path", "outcome");
    this.connects = upstream.labelValues(dataPath, "connect");
    this.reuses = upstream.labelValues(dataPath, "reuse");
    this.retries = upstream.labelValues(dataPath, "retry");
    Counter dropped = metrics.counter("ingress_request_log_dropped_total", "Request log lines "
        + "dropped because the log's writer fell behind (its queue was full).", "data_path");
    CounterDataPoint droppedPoint = dropped.labelValues(dataPath);
    this.log = logOn && RequestLog.loggerEnabled()
        ? new RequestLog(json, logQueue, droppedPoint::inc) : null;
  }

  /**
   * The observer of data path {@code dataPath} ({@code direct} or {@code relayed}) as
   * {@code sluice.ingress.metrics} and {@code sluice.ingress.request-log} configure it.
   */
  public static IngressObserver fromConfig(Config root, String dataPath) {
    Config config = root.getConfig("sluice.ingress");
    String format = config.getString("request-log.format");
    if (!format.equals("text") && !format.equals("json")) {
      throw new IllegalArgumentException("sluice.ingress.request-log.format: '" + format
          + "' (expected: text or json)");
    }
    return new IngressObserver(SluiceMetrics.global(), dataPath, config.getBoolean("metrics"),
        config.getBoolean("request-log.enabled"), format.equals("json"),
        config.getInt("request-log.queue-size"));
  }

  /** Neither metrics nor a log (tests and tools that start a bare splice). */
  public static IngressObserver off() {
    return off("direct");
  }

  /**
   * Neither metrics nor a log, for a server of data path {@code dataPath} whose requests another
   * observer counts (its series are those of {@code dataPath}, never updated here).
   */
  public static IngressObserver off(String dataPath) {
    return new IngressObserver(SluiceMetrics.global(), dataPath, false, false, false, 1);
  }

  /** A request arrived now (its head was read). */
  public RequestTrace begin(String requestId, String path) {
    return new RequestTrace(requestId, route(path), System.nanoTime());
  }

  /** The router answered for {@code trace}. */
  public void routed(RequestTrace trace, String replicaId) {
    trace.routed(replicaId);
    if (metricsOn) {
      routeLatency.observe((trace.routedNanos - trace.startNanos) / 1e9);
    }
  }

  /** The answer's head went out; a streamed one counts as open until {@link #ended}. */
  public void head(RequestTrace trace, int status, String reason, boolean eventStream) {
    // Tokens are counted (a scan of the streamed bytes) only when something reports them.
    trace.head(status, reason, eventStream && (metricsOn || log != null));
    if (metricsOn && eventStream) {
      streamsOpen.inc();
    }
  }

  /** {@code trace}'s request ended; counted and logged once, however often this is called. */
  public void ended(RequestTrace trace, RequestTrace.Outcome outcome) {
    if (trace == null || !trace.end()) {
      return;
    }
    long now = System.nanoTime();
    if (metricsOn) {
      if (trace.streaming) {
        streamsOpen.dec();
      }
      outcomes.computeIfAbsent(new Outcome(trace.route, trace.status, trace.reason),
          o -> requests.labelValues(o.route(), dataPath, Integer.toString(o.status()),
              reasonLabel(o.reason()))).inc();
      RouteMetrics route = routes.get(trace.route);
      if (trace.firstTokenAt() >= 0 && trace.status < 300) {
        route.ttft().observe((trace.firstTokenAt() - trace.startNanos) / 1e9);
      }
      route.duration().observe((now - trace.startNanos) / 1e9);
      bytes.inc(trace.bytes);
      if (trace.tokens > 0) {
        tokens.inc(trace.tokens);
      }
    }
    if (log != null) {
      log.offer(new RequestLog.Entry(trace.requestId, dataPath, trace.route, trace.replica,
          trace.status, trace.reason, outcome.label, ms(trace.routedNanos, trace.startNanos),
          ms(trace.firstTokenAt(), trace.startNanos), ms(now, trace.startNanos),
          trace.streaming ? trace.tokens : -1, trace.bytes));
    }
  }

  public void upstreamConnected() {
    if (metricsOn) {
      connects.inc();
    }
  }

  public void upstreamReused() {
    if (metricsOn) {
      reuses.inc();
    }
  }

  public void upstreamRetried() {
    if (metricsOn) {
      retries.inc();
    }
  }

  /** Whether requests are logged (the log is on and its logger enabled). */
  boolean logging() {
    return log != null;
  }

  /** Stops the log's writer after what it holds is written. */
  public void close() {
    if (log != null) {
      log.close();
    }
  }

  private static double ms(long at, long start) {
    return at < 0 ? -1 : (at - start) / 1e6;
  }

  static String reasonLabel(String reason) {
    return reason == null ? "none" : REASONS.contains(reason) ? reason : "other";
  }

  static String route(String path) {
    for (String route : ROUTES) {
      if (path.endsWith(route)) {
        return route;
      }
    }
    return "other";
  }
}
