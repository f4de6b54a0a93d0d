package dev.sluice.core.config;

import dev.sluice.core.serialization.ClusterMessage;

/**
 * Ray Serve's {@code autoscaling_config}: the replica count follows the load (ongoing plus
 * queued requests per replica, averaged over {@code lookBackPeriodS}) towards {@code
 * targetOngoingRequests} per replica, smoothed, clamped to [{@code minReplicas}, {@code
 * maxReplicas}], and applied only once the decision has held for the up- or downscale delay.
 * {@link #OFF} when the deployment has a fixed {@code num_replicas}.
 */
public record AutoscalingConfig(
    boolean enabled,
    int minReplicas,
    int maxReplicas,
    int initialReplicas,
    double targetOngoingRequests,
    double upscaleDelayS,
    double downscaleDelayS,
    double lookBackPeriodS,
    double metricsIntervalS,
    double upscaleSmoothingFactor,
    double downscaleSmoothingFactor) implements ClusterMessage {

  /** A fixed replica count. */
  public static final AutoscalingConfig OFF =
      new AutoscalingConfig(false, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  public AutoscalingConfig {
    if (enabled && (minReplicas < 1 || maxReplicas < minReplicas
        || initialReplicas < minReplicas || initialReplicas > maxReplicas)) {
      throw new IllegalArgumentException("autoscaling bounds: min " + minReplicas + ", max "
          + maxReplicas + ", initial " + initialReplicas);
    }
  }
}
