package dev.sluice.core.config;

import java.util.Objects;

/**
 * Replica count, capacity and lifecycle of one deployment.
 *
 * @param name deployment name; empty means "the model id"
 * @param numReplicas the fixed replica count, or the initial one when autoscaling
 * @param autoscaling {@link AutoscalingConfig#OFF} for a fixed count
 */
public record DeploymentConfig(
    String name,
    int numReplicas,
    int maxOngoingRequests,
    double gracefulShutdownTimeoutS,
    double healthCheckPeriodS,
    double healthCheckTimeoutS,
    RequestRouterConfig requestRouter,
    AutoscalingConfig autoscaling) {

  public DeploymentConfig {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(requestRouter, "requestRouter");
    Objects.requireNonNull(autoscaling, "autoscaling");
  }

  /** A fixed count of {@code replicas} (autoscaling off). */
  public DeploymentConfig withNumReplicas(int replicas) {
    return new DeploymentConfig(name, replicas, maxOngoingRequests, gracefulShutdownTimeoutS,
        healthCheckPeriodS, healthCheckTimeoutS, requestRouter, AutoscalingConfig.OFF);
  }

  /** Autoscaled by {@code config}, starting from its initial count. */
  public DeploymentConfig withAutoscaling(AutoscalingConfig config) {
    return new DeploymentConfig(name, config.initialReplicas(), maxOngoingRequests,
        gracefulShutdownTimeoutS, healthCheckPeriodS, healthCheckTimeoutS, requestRouter, config);
  }
}
