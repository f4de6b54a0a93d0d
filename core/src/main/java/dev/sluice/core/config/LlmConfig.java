package dev.sluice.core.config;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.Objects;

/** One model's deployment: which model, which engine, how many replicas and how routed. */
public record LlmConfig(String modelId, EngineConfig engine, DeploymentConfig deployment)
    implements ClusterMessage {

  public LlmConfig {
    Objects.requireNonNull(modelId, "modelId");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(deployment, "deployment");
  }

  /** The deployment name: {@code deployment_config.name}, defaulting to the model id. */
  public String deploymentName() {
    return deployment.name().isEmpty() ? modelId : deployment.name();
  }

  public DeploymentId deploymentId(String app) {
    return new DeploymentId(app, deploymentName());
  }
}
