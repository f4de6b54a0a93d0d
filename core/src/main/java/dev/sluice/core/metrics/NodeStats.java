package dev.sluice.core.metrics;

import dev.sluice.core.serialization.ClusterMessage;
import java.util.List;
import java.util.Objects;

/**
 * A node's metrics as the dashboard needs them, published on {@link NodeStatsTopic} every second:
 * the same samples its {@code /metrics} shows (cumulative counters, gauges, histogram buckets),
 * so the dashboard's rates and the Prometheus queries over them agree.
 *
 * @param node the node's cluster address
 * @param atMillis when the samples were taken (epoch ms)
 */
public record NodeStats(String node, long atMillis, List<Sample> samples)
    implements ClusterMessage {

  public NodeStats {
    Objects.requireNonNull(node, "node");
    samples = List.copyOf(samples);
  }

  /**
   * One sample: its exposition name ({@code sluice_ingress_requests_total},
   * {@code sluice_replica_ttft_seconds_bucket}) and its labels as name, value pairs.
   */
  public record Sample(String name, List<String> labels, double value) {

    public Sample {
      Objects.requireNonNull(name, "name");
      labels = List.copyOf(labels);
    }

    /** The value of label {@code name}, or null. */
    public String label(String labelName) {
      for (int i = 0; i + 1 < labels.size(); i += 2) {
        if (labels.get(i).equals(labelName)) {
          return labels.get(i + 1);
        }
      }
      return null;
    }
  }
}
