package dev.sluice.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A thread-safe view of the latest {@link ReplicaSet} per deployment, keeping only newer versions.
 * Shared by the router and the ingress. Readers see one immutable snapshot at a time (a single
 * volatile read): a set being replaced is never seen half-applied, so a replica in both the old
 * and the new set never looks unknown for a moment.
 */
public final class ReplicaSetView {

  /** How many retired replica ids are remembered (the oldest are forgotten first). */
  static final int RETIRED_REMEMBERED = 1024;

  /**
   * Every deployment's set and every replica by id, as of one moment; {@code held} also keeps the
   * last set of removed deployments, for their version; {@code retired} holds the ids of replicas
   * this view had and no longer has, most recent last.
   */
  private record Snapshot(Map<DeploymentId, ReplicaSet> held, Map<DeploymentId, ReplicaSet> sets,
      Map<String, ReplicaInfo> byId, Set<String> retired,
      List<Map.Entry<String, String>> prefixes) {}

  private volatile Snapshot snapshot =
      new Snapshot(Map.of(), Map.of(), Map.of(), Set.of(), List.of());

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
    snapshot = new Snapshot(Map.copyOf(held), Map.copyOf(sets), Map.copyOf(byId),
        retired(current, byId), prefixes(sets.values()));
    return true;
  }

  /**
   * Each route prefix and its application, the longest prefix first (the order a path is
   * matched in).
   */
  private static List<Map.Entry<String, String>> prefixes(Collection<ReplicaSet> sets) {
    Map<String, String> appByPrefix = new HashMap<>();
    sets.forEach(set -> appByPrefix.put(set.routePrefix(), set.deployment().app()));
    List<Map.Entry<String, String>> prefixes = new ArrayList<>(appByPrefix.entrySet());
    prefixes.sort(Comparator.comparingInt(
        (Map.Entry<String, String> e) -> e.getKey().length()).reversed());
    return List.copyOf(prefixes);
  }

  /** The retired ids after a change: the old ones plus those just dropped, bounded. */
  private static Set<String> retired(Snapshot current, Map<String, ReplicaInfo> byId) {
    LinkedHashSet<String> retired = new LinkedHashSet<>(current.retired());
    current.byId().keySet().stream().filter(id -> !byId.containsKey(id)).forEach(retired::add);
    retired.removeIf(byId::containsKey);
    var oldest = retired.iterator();
    for (int excess = retired.size() - RETIRED_REMEMBERED; excess > 0; excess--) {
      oldest.next();
      oldest.remove();
    }
    return Collections.unmodifiableSet(retired);
  }

  public Optional<ReplicaSet> get(DeploymentId deployment) {
    return Optional.ofNullable(snapshot.sets().get(deployment));
  }

  /**
   * The application {@code path} belongs to (Ray Serve's longest route prefix), or empty when no
   * application's prefix takes it (also when no application is known yet).
   */
  public Optional<AppRoute> route(String path) {
    for (Map.Entry<String, String> prefix : snapshot.prefixes()) {
      if (AppRoute.takes(prefix.getKey(), path)) {
        return Optional.of(new AppRoute(prefix.getValue(), prefix.getKey(),
            AppRoute.within(prefix.getKey(), path)));
      }
    }
    return Optional.empty();
  }

  /** Route prefix to application name, for every application known (with replicas or not). */
  public Map<String, String> routePrefixes() {
    Map<String, String> prefixes = new java.util.TreeMap<>();
    snapshot.prefixes().forEach(prefix -> prefixes.put(prefix.getKey(), prefix.getValue()));
    return prefixes;
  }

  public Collection<ReplicaSet> all() {
    return snapshot.sets().values();
  }

  public Optional<ReplicaInfo> replica(String replicaId) {
    return Optional.ofNullable(snapshot.byId().get(replicaId));
  }

  /**
   * A router's pick as this view takes it: the replica as this view knows it; the pick itself
   * when this view has not heard of it yet (the router, beside the controller, usually learns a
   * new set first, and the pick carries the endpoint); empty when this view saw it dropped.
   */
  public Optional<ReplicaInfo> pick(ReplicaInfo picked) {
    String replicaId = picked.id().toString();
    Optional<ReplicaInfo> known = replica(replicaId);
    return known.isPresent() || retired(replicaId) ? known : Optional.of(picked);
  }

  /**
   * Whether this view had {@code replicaId} and a newer set dropped it (among the last
   * {@value #RETIRED_REMEMBERED} dropped). A replica neither current nor retired is one this view
   * has not heard of yet.
   */
  public boolean retired(String replicaId) {
    return snapshot.retired().contains(replicaId);
  }
}
