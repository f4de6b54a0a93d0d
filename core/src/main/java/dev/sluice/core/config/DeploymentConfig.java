package dev.sluice.core.config;

import java.util.Objects;

/**
 * Replica count, capacity and lifecycle of one deployment.
 *
 * @param name deployment name; empty means "the model id"
 */
public record DeploymentConfig(
    String name,
    int numReplicas,
    int maxOngoingRequests,
    double gracefulShutdownTimeoutS,
    double healthCheckPeriodS,
    double healthCheckTimeoutS,
    RequestRouterConfig requestRouter) {

  public DeploymentConfig {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(requestRouter, "requestRouter");
  }

  public DeploymentConfig withNumReplicas(int replicas) {
    return new DeploymentConfig(
        name,
        replicas,
        maxOngoingRequests,
        gracefulShutdownTimeoutS,
        healthCheckPeriodS,
        healthCheckTimeoutS,
        requestRouter);
  }
}
