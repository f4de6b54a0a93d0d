package dev.sluice.replica;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.replica.engine.EngineStats;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import java.util.List;

/**
 * One replica's metrics, labelled {@code deployment} and {@code replica}: its slots (ongoing,
 * queued, limit), tokens generated, aborted requests, time to first token, and its engine's own
 * statistics. Gauges and the engine's cumulative counts are taken on every load tick; the series
 * are removed when the replica stops, so a replaced replica leaves no stale rows.
 */
final class ReplicaMetrics {

  static final double[] TTFT_SECONDS = {0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3,
      0.5, 0.75, 1, 2.5, 5, 10};

  private static final SluiceMetrics METRICS = SluiceMetrics.global();
  private static final Gauge ONGOING = METRICS.gauge("replica_ongoing",
      "Requests holding a slot of the replica (generating or waiting in the engine).",
      "deployment", "replica");
  private static final Gauge QUEUED = METRICS.gauge("replica_queued",
      "Requests admitted by the replica but waiting for an engine batch slot.",
      "deployment", "replica");
  private static final Gauge SLOTS = METRICS.gauge("replica_slots",
      "The replica's slots (max_ongoing_requests).", "deployment", "replica");
  private static final Counter TOKENS = METRICS.counter("replica_generated_tokens_total",
      "Tokens the replica's engine generated.", "deployment", "replica");
  private static final Counter ABORTED = METRICS.counter("replica_aborted_requests_total",
      "Requests that ended before their last token (the client went away, or drain cut them).",
      "deployment", "replica");
  private static final Histogram TTFT = METRICS.histogram("replica_ttft_seconds",
      "Time from a request taking a slot to its first generated token (an external engine's "
          + "own TTFT histogram where it exports one).", TTFT_SECONDS,
      "deployment", "replica");
  private static final Gauge RUNNING = METRICS.gauge("engine_running_requests",
      "Requests in the engine's running batch.", "deployment", "replica");
  private static final Gauge WAITING = METRICS.gauge("engine_waiting_requests",
      "Requests waiting for the engine's batch.", "deployment", "replica");
  private static final Gauge KV_CACHE = METRICS.gauge("engine_kv_cache_usage_ratio",
      "Share of the engine's KV-cache blocks in use (0..1).", "deployment", "replica");
  private static final Gauge PREFIX_HITS = METRICS.gauge("engine_prefix_cache_hit_ratio",
      "Prompt tokens served from the engine's prefix cache / prompt tokens (0..1).",
      "deployment", "replica");
  private static final List<Object> ALL =
      List.of(ONGOING, QUEUED, SLOTS, TOKENS, ABORTED, TTFT, RUNNING, WAITING, KV_CACHE,
          PREFIX_HITS);

  private final String[] labels;
  private final GaugeDataPoint ongoing;
  private final GaugeDataPoint queued;
  private final GaugeDataPoint slots;
  private final CounterDataPoint tokens;
  private final CounterDataPoint aborted;
  private final DistributionDataPoint ttft;
  private final EngineTtftFeed engineTtft = new EngineTtftFeed();
  private long tokensSeen;
  private long abortedSeen;

  ReplicaMetrics(ReplicaId id) {
    this.labels = new String[] {id.deploymentId().toString(), id.toString()};
    this.ongoing = ONGOING.labelValues(labels);
    this.queued = QUEUED.labelValues(labels);
    this.slots = SLOTS.labelValues(labels);
    this.tokens = TOKENS.labelValues(labels);
    this.aborted = ABORTED.labelValues(labels);
    this.ttft = TTFT.labelValues(labels);
  }

  /** A time to first token the replica measured (left out once its engine counts its own). */
  void ttft(double seconds) {
    if (!engineTtft.active()) {
      ttft.observe(seconds);
    }
  }

  /** Takes the replica's current load and its engine's statistics. */
  void update(int ongoingNow, int limit, EngineStats stats) {
    ongoing.set(ongoingNow);
    slots.set(limit);
    queued.set(stats.waiting());
    RUNNING.labelValues(labels).set(stats.running());
    WAITING.labelValues(labels).set(stats.waiting());
    KV_CACHE.labelValues(labels).set(stats.kvCacheUsage());
    PREFIX_HITS.labelValues(labels).set(stats.prefixCacheHitRatio());
    engineTtft.feed(stats.ttft(), ttft::observe);
    if (stats.generatedTokens() > tokensSeen) {
      tokens.inc(stats.generatedTokens() - tokensSeen);
      tokensSeen = stats.generatedTokens();
    }
    if (stats.aborted() > abortedSeen) {
      aborted.inc(stats.aborted() - abortedSeen);
      abortedSeen = stats.aborted();
    }
  }

  /** Drops this replica's series (it stopped). */
  void remove() {
    for (Object metric : ALL) {
      if (metric instanceof Gauge gauge) {
        gauge.remove(labels);
      } else if (metric instanceof Counter counter) {
        counter.remove(labels);
      } else if (metric instanceof Histogram histogram) {
        histogram.remove(labels);
      }
    }
  }
}
