package dev.sluice.ingress.splice;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.ingress.observe.IngressObserver;
import io.prometheus.metrics.core.metrics.Counter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the splice refused or cut, by reason: counted for this server (tests, logs) and in the
 * node's Prometheus registry ({@code sluice_ingress_edge_rejections_total{reason}},
 * {@code sluice_ingress_streams_cut_total{reason}}, {@code sluice_ingress_reroutes_total}).
 */
public final class SpliceStats {

  private static final Counter REJECTIONS = SluiceMetrics.global().counter(
      "ingress_edge_rejections_total", "Requests or connections the ingress's splice refused "
          + "before routing, by reason (the OpenAI error code, or connection_limit)", "reason");
  private static final Counter CUTS = SluiceMetrics.global().counter(
      "ingress_streams_cut_total", "Answers in flight the splice cut because bytes stopped "
          + "moving, by side (replica_silent, client_stalled)", "reason");
  private static final Counter REROUTES = SluiceMetrics.global().counter(
      "ingress_reroutes_total", "Requests sent to another replica because the one chosen "
          + "refused the connection before any byte of the request was sent");

  final IngressObserver observer;
  private final Map<String, LongAdder> rejections = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> cuts = new ConcurrentHashMap<>();
  private final LongAdder reroutes = new LongAdder();

  SpliceStats(IngressObserver observer) {
    this.observer = observer;
  }

  void rejected(ApiError.Code code) {
    rejected(code.wireName());
  }

  void rejected(String reason) {
    rejections.computeIfAbsent(reason, r -> new LongAdder()).increment();
    REJECTIONS.labelValues(reason).inc();
  }

  void streamsCut(String reason) {
    cuts.computeIfAbsent(reason, r -> new LongAdder()).increment();
    CUTS.labelValues(reason).inc();
  }

  void rerouted() {
    reroutes.increment();
    REROUTES.inc();
  }

  /** Requests rerouted after a refused connection since this server started. */
  public long reroutes() {
    return reroutes.sum();
  }

  /** Requests or connections refused for {@code reason} since this server started. */
  public long rejections(String reason) {
    LongAdder count = rejections.get(reason);
    return count == null ? 0 : count.sum();
  }

  /** Answers cut for {@code reason} since this server started. */
  public long cuts(String reason) {
    LongAdder count = cuts.get(reason);
    return count == null ? 0 : count.sum();
  }
}
