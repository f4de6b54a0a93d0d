package dev.sluice.controller.dashboard;

import dev.sluice.core.metrics.NodeStats;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * What the dashboard computes from the nodes' reports, the way Prometheus would from the same
 * samples: {@code rate()} of counters (a counter that went down restarted: its new value is the
 * increase), sums of gauges, and {@code histogram_quantile()} over bucket increases summed across
 * nodes and series.
 */
final class MetricMath {

  private MetricMath() {}

  /** Per-second increase of the matching counter samples, summed over every node. */
  static double rate(List<NodeStatsStore.Span> spans, String name,
      Predicate<NodeStats.Sample> filter) {
    double total = 0;
    for (NodeStatsStore.Span span : spans) {
      if (span.seconds() <= 0) {
        continue;
      }
      total += increase(span, name, filter, null).values().stream()
          .mapToDouble(Double::doubleValue).sum() / span.seconds();
    }
    return total;
  }

  /** The same rate, split by the value of {@code label}. */
  static Map<String, Double> rateBy(List<NodeStatsStore.Span> spans, String name,
      Predicate<NodeStats.Sample> filter, String label) {
    Map<String, Double> rates = new TreeMap<>();
    for (NodeStatsStore.Span span : spans) {
      if (span.seconds() <= 0) {
        continue;
      }
      increase(span, name, filter, label).forEach((value, increase) ->
          rates.merge(value, increase / span.seconds(), Double::sum));
    }
    return rates;
  }

  /** The newest values of the matching gauge samples, summed by the value of {@code label}. */
  static Map<String, Double> gaugeBy(List<NodeStatsStore.Span> spans, String name,
      Predicate<NodeStats.Sample> filter, String label) {
    Map<String, Double> sums = new TreeMap<>();
    for (NodeStatsStore.Span span : spans) {
      for (NodeStats.Sample sample : span.latest().samples()) {
        if (sample.name().equals(name) && filter.test(sample)) {
          sums.merge(String.valueOf(sample.label(label)), sample.value(), Double::sum);
        }
      }
    }
    return sums;
  }

  /**
   * The {@code q} quantile (0..1) of a histogram's observations within the spans, from its
   * {@code _bucket} samples, in the histogram's unit; null when nothing was observed.
   */
  static Double quantile(List<NodeStatsStore.Span> spans, String histogram,
      Predicate<NodeStats.Sample> filter, double q) {
    Map<String, Double> byLe = new HashMap<>();
    for (NodeStatsStore.Span span : spans) {
      increase(span, histogram + "_bucket", filter, "le")
          .forEach((le, increase) -> byLe.merge(le, increase, Double::sum));
    }
    return quantile(byLe, q);
  }

  /**
   * The same quantile for each value of {@code label} (a replica, say), in one pass over the
   * samples: asking {@link #quantile} once per value would read every sample once per value.
   * Values with nothing observed are left out.
   */
  static Map<String, Double> quantileBy(List<NodeStatsStore.Span> spans, String histogram,
      Predicate<NodeStats.Sample> filter, String label, double q) {
    Map<String, Map<String, Double>> byValue = new HashMap<>();
    for (NodeStatsStore.Span span : spans) {
      increaseBy(span, histogram + "_bucket", filter, label, "le").forEach((key, increase) ->
          byValue.computeIfAbsent(key.get(0), v -> new HashMap<>())
              .merge(key.get(1), increase, Double::sum));
    }
    Map<String, Double> quantiles = new HashMap<>();
    byValue.forEach((value, byLe) -> {
      Double quantile = quantile(byLe, q);
      if (quantile != null) {
        quantiles.put(value, quantile);
      }
    });
    return quantiles;
  }

  /** The quantile of bucket counts keyed by their {@code le}; null when they hold nothing. */
  private static Double quantile(Map<String, Double> byLe, double q) {
    TreeMap<Double, Double> cumulative = new TreeMap<>();
    byLe.forEach((le, count) -> cumulative.put(
        le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le), count));
    if (cumulative.isEmpty() || cumulative.lastEntry().getValue() <= 0) {
      return null;
    }
    double total = cumulative.lastEntry().getValue();
    double rank = q * total;
    double lowerBound = 0;
    double lowerCount = 0;
    for (Map.Entry<Double, Double> bucket : cumulative.entrySet()) {
      if (bucket.getValue() >= rank) {
        if (bucket.getKey().isInfinite()) {
          return lowerBound;  // above the highest finite bound: that bound, as Prometheus does
        }
        double inBucket = bucket.getValue() - lowerCount;
        double share = inBucket <= 0 ? 1 : (rank - lowerCount) / inBucket;
        return lowerBound + (bucket.getKey() - lowerBound) * share;
      }
      lowerBound = bucket.getKey();
      lowerCount = bucket.getValue();
    }
    return lowerBound;
  }

  /** Increase of each matching series from the span's earlier report to its latest, by label. */
  private static Map<String, Double> increase(NodeStatsStore.Span span, String name,
      Predicate<NodeStats.Sample> filter, String label) {
    Map<String, Double> increases = new HashMap<>();
    forEachIncrease(span, name, filter, (sample, increase) -> increases.merge(
        label == null ? "" : String.valueOf(sample.label(label)), increase, Double::sum));
    return increases;
  }

  /** The same increases, summed by the values of two labels ([first, second]). */
  private static Map<List<String>, Double> increaseBy(NodeStatsStore.Span span, String name,
      Predicate<NodeStats.Sample> filter, String first, String second) {
    Map<List<String>, Double> increases = new HashMap<>();
    forEachIncrease(span, name, filter, (sample, increase) -> increases.merge(
        List.of(String.valueOf(sample.label(first)), String.valueOf(sample.label(second))),
        increase, Double::sum));
    return increases;
  }

  private static void forEachIncrease(NodeStatsStore.Span span, String name,
      Predicate<NodeStats.Sample> filter, BiConsumer<NodeStats.Sample, Double> action) {
    Map<List<String>, Double> before = new HashMap<>();
    for (NodeStats.Sample sample : span.earlier().samples()) {
      if (sample.name().equals(name) && filter.test(sample)) {
        before.put(sample.labels(), sample.value());
      }
    }
    for (NodeStats.Sample sample : span.latest().samples()) {
      if (!sample.name().equals(name) || !filter.test(sample)) {
        continue;
      }
      double was = before.getOrDefault(sample.labels(), span.earlier() == span.latest()
          ? sample.value() : 0.0);
      action.accept(sample, sample.value() >= was ? sample.value() - was : sample.value());
    }
  }

  /** Samples whose label {@code name} is {@code value}. */
  static Predicate<NodeStats.Sample> where(String name, String value) {
    return sample -> value.equals(sample.label(name));
  }

  static Predicate<NodeStats.Sample> any() {
    return sample -> true;
  }
}
