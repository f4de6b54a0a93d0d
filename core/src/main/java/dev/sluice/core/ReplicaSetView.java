package dev.sluice.core;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A thread-safe view of the latest {@link ReplicaSet} per deployment, keeping only newer versions.
 * Shared by the router and the ingress. Readers see one immutable snapshot at a time (a single
 * volatile read): a set being replaced is never seen half-applied, so a replica in both the old
 * and the new set never looks unknown for a moment.
 */
public final class ReplicaSetView {

  /**
   * Every deployment's set and every replica by id, as of one moment; {@code held} also keeps the
   * last set of removed deployments, for their version.
   */
  private record Snapshot(Map<DeploymentId, ReplicaSet> held, Map<DeploymentId, ReplicaSet> sets,
      Map<String, ReplicaInfo> byId) {}

  private volatile Snapshot snapshot = new Snapshot(Map.of(), Map.of(), Map.of());

  /** Applies a snapshot if it is newer than the one held; returns whether it was applied. */
  public synchronized boolean apply(ReplicaSet set) {
    Objects.requireNonNull(set, "set");
    Snapshot current = snapshot;
    ReplicaSet previous = current.held().get(set.deployment());
    if (previous != null && previous.version() >= set.version()) {
      return false;
    }
    Map<DeploymentId, ReplicaSet> held = new HashMap<>(current.held());
    held.put(set.deployment(), set);
    Map<DeploymentId, ReplicaSet> sets = new HashMap<>();
    Map<String, ReplicaInfo> byId = new HashMap<>();
    for (ReplicaSet each : held.values()) {
      if (!each.removed()) {
        sets.put(each.deployment(), each);
        each.replicas().forEach(r -> byId.put(r.id().toString(), r));
      }
    }
    snapshot = new Snapshot(Map.copyOf(held), Map.copyOf(sets), Map.copyOf(byId));
    return true;
  }

  public Optional<ReplicaSet> get(DeploymentId deployment) {
    return Optional.ofNullable(snapshot.sets().get(deployment));
  }

  public Collection<ReplicaSet> all() {
    return snapshot.sets().values();
  }

  public Optional<ReplicaInfo> replica(String replicaId) {
    return Optional.ofNullable(snapshot.byId().get(replicaId));
  }

  /**
   * The deployment a request goes to: the one serving {@code model} if given, else the only
   * deployment there is.
   */
  public Optional<ReplicaSet> resolve(Optional<String> model) {
    Map<DeploymentId, ReplicaSet> sets = snapshot.sets();
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
