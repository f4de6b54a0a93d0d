package dev.sluice.core;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A thread-safe view of the latest {@link ReplicaSet} per deployment, keeping only newer versions.
 * Shared by the router and the ingress; reads never block (one volatile map lookup).
 */
public final class ReplicaSetView {

  private final Map<DeploymentId, ReplicaSet> sets = new ConcurrentHashMap<>();
  private final Map<String, ReplicaInfo> replicasById = new ConcurrentHashMap<>();

  /** Applies a snapshot if it is newer than the one held; returns whether it was applied. */
  public synchronized boolean apply(ReplicaSet set) {
    Objects.requireNonNull(set, "set");
    ReplicaSet current = sets.get(set.deployment());
    if (current != null && current.version() >= set.version()) {
      return false;
    }
    if (current != null) {
      current.replicas().forEach(r -> replicasById.remove(r.id().toString()));
    }
    sets.put(set.deployment(), set);
    set.replicas().forEach(r -> replicasById.put(r.id().toString(), r));
    return true;
  }

  public Optional<ReplicaSet> get(DeploymentId deployment) {
    return Optional.ofNullable(sets.get(deployment));
  }

  public Collection<ReplicaSet> all() {
    return sets.values();
  }

  public Optional<ReplicaInfo> replica(String replicaId) {
    return Optional.ofNullable(replicasById.get(replicaId));
  }

  /**
   * The deployment a request goes to: the one serving {@code model} if given, else the only
   * deployment there is.
   */
  public Optional<ReplicaSet> resolve(Optional<String> model) {
    if (model.isPresent()) {
      for (ReplicaSet set : sets.values()) {
        if (set.serves(model.get())) {
          return Optional.of(set);
        }
      }
      return Optional.empty();
    }
    return sets.size() == 1 ? Optional.of(sets.values().iterator().next()) : Optional.empty();
  }
}
