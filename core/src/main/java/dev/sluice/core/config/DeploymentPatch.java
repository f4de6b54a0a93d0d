package dev.sluice.core.config;

import dev.sluice.core.serialization.ClusterMessage;

/**
 * A change to one running deployment: a fixed {@code num_replicas} ({@code autoscaling} is then
 * {@link AutoscalingConfig#OFF}), or an {@code autoscaling_config} ({@code numReplicas} -1).
 */
public record DeploymentPatch(int numReplicas, AutoscalingConfig autoscaling)
    implements ClusterMessage {

  public static DeploymentPatch numReplicas(int replicas) {
    return new DeploymentPatch(replicas, AutoscalingConfig.OFF);
  }

  public static DeploymentPatch autoscaling(AutoscalingConfig config) {
    return new DeploymentPatch(-1, config);
  }

  /** The deployment with this change applied. */
  public DeploymentConfig applyTo(DeploymentConfig deployment) {
    return autoscaling.enabled() ? deployment.withAutoscaling(autoscaling)
        : deployment.withNumReplicas(numReplicas);
  }
}
