package dev.sluice.core;

import dev.sluice.core.serialization.ClusterMessage;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A versioned snapshot of the RUNNING replicas of one deployment, published by the controller to
 * every router and ingress. A subscriber keeps the highest version it has seen per deployment.
 *
 * @param modelIds the model ids the deployment serves (known even when it has no replicas)
 * @param routePrefix the application's route prefix
 * @param routerClass the configured request router key or class name
 * @param removed the deployment was removed from the desired state: subscribers forget it (and
 *     keep only its version, so that an older set arriving late does not bring it back)
 */
public record ReplicaSet(
    DeploymentId deployment,
    long version,
    String routePrefix,
    List<String> modelIds,
    String routerClass,
    java.util.Map<String, Object> routerKwargs,
    List<ReplicaInfo> replicas,
    boolean removed)
    implements ClusterMessage {

  /** A deployment's current set. */
  public ReplicaSet(DeploymentId deployment, long version, String routePrefix,
      List<String> modelIds, String routerClass, java.util.Map<String, Object> routerKwargs,
      List<ReplicaInfo> replicas) {
    this(deployment, version, routePrefix, modelIds, routerClass, routerKwargs, replicas, false);
  }

  public ReplicaSet {
    Objects.requireNonNull(deployment, "deployment");
    Objects.requireNonNull(routePrefix, "routePrefix");
    Objects.requireNonNull(routerClass, "routerClass");
    modelIds = List.copyOf(modelIds);
    routerKwargs = java.util.Map.copyOf(routerKwargs);
    replicas = List.copyOf(replicas);
  }

  public Optional<ReplicaInfo> find(String replicaId) {
    for (ReplicaInfo replica : replicas) {
      if (replica.id().toString().equals(replicaId)) {
        return Optional.of(replica);
      }
    }
    return Optional.empty();
  }

  /** Whether this deployment belongs to {@code app} (to any application when empty). */
  public boolean inApp(Optional<String> app) {
    return app.isEmpty() || deployment.app().equals(app.get());
  }

  public boolean serves(String modelId) {
    return modelIds.contains(modelId);
  }
}
