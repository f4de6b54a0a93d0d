package dev.sluice.core.metrics;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBucket;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Label;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Takes {@link NodeStats} samples from a registry: the families named, flattened the way the text
 * format shows them ({@code _total} for counters; {@code _bucket} with {@code le}, {@code _count}
 * and {@code _sum} for histograms).
 */
public final class StatsSampler {

  private final PrometheusRegistry registry;
  private final Set<String> families;

  /** @param families metric names without suffix, e.g. {@code sluice_ingress_requests} */
  public StatsSampler(PrometheusRegistry registry, Set<String> families) {
    this.registry = registry;
    this.families = Set.copyOf(families);
  }

  public List<NodeStats.Sample> sample() {
    List<NodeStats.Sample> samples = new ArrayList<>();
    for (MetricSnapshot snapshot : registry.scrape(families::contains)) {
      String name = snapshot.getMetadata().getPrometheusName();
      if (snapshot instanceof CounterSnapshot counter) {
        counter.getDataPoints().forEach(point ->
            samples.add(new NodeStats.Sample(name + "_total", pairs(point.getLabels(), null, null),
                point.getValue())));
      } else if (snapshot instanceof GaugeSnapshot gauge) {
        gauge.getDataPoints().forEach(point ->
            samples.add(new NodeStats.Sample(name, pairs(point.getLabels(), null, null),
                point.getValue())));
      } else if (snapshot instanceof HistogramSnapshot histogram) {
        for (HistogramSnapshot.HistogramDataPointSnapshot point : histogram.getDataPoints()) {
          long cumulative = 0;
          for (ClassicHistogramBucket bucket : point.getClassicBuckets()) {
            cumulative += bucket.getCount();
            samples.add(new NodeStats.Sample(name + "_bucket", pairs(point.getLabels(), "le",
                le(bucket.getUpperBound())), cumulative));
          }
          samples.add(new NodeStats.Sample(name + "_count", pairs(point.getLabels(), null, null),
              point.getCount()));
          samples.add(new NodeStats.Sample(name + "_sum", pairs(point.getLabels(), null, null),
              point.getSum()));
        }
      }
    }
    return samples;
  }

  private static String le(double bound) {
    return bound == Double.POSITIVE_INFINITY ? "+Inf" : Double.toString(bound);
  }

  private static List<String> pairs(Labels labels, String extraName, String extraValue) {
    List<String> pairs = new ArrayList<>(labels.size() * 2 + 2);
    for (Label label : labels) {
      pairs.add(label.getName());
      pairs.add(label.getValue());
    }
    if (extraName != null) {
      pairs.add(extraName);
      pairs.add(extraValue);
    }
    return pairs;
  }
}
