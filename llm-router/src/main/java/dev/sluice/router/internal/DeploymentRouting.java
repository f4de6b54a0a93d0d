package dev.sluice.router.internal;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.router.policy.capacityqueue.CapacityQueueRouter;
import dev.sluice.router.spi.LoadView;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.RequestRouter;
import dev.sluice.router.spi.RequestRouters;
import dev.sluice.router.spi.RouterContext;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * One deployment as the router sees it: its latest replica set and its policy instance (recreated
 * when the configured policy or kwargs change), with metrics.
 */
public final class DeploymentRouting {

  private ReplicaSet set;
  private RequestRouter policy;
  private String error = "";
  private RouterMetrics metrics;
  private final LoadView loads;
  private final SluiceMetrics registry;

  public DeploymentRouting(ReplicaSet set, LoadView loads, SluiceMetrics registry) {
    this.loads = loads;
    this.registry = registry;
    this.set = set;
    createPolicy();
  }

  /** Applies a newer set; a changed policy or kwargs recreate the policy. */
  public void update(ReplicaSet newer) {
    boolean policyChanged = !newer.routerClass().equals(set.routerClass())
        || !newer.routerKwargs().equals(set.routerKwargs());
    set = newer;
    metrics.replicas(set.replicas().size());
    if (policyChanged) {
      createPolicy();
    } else if (policy != null) {
      policy.onReplicaSetChanged(set.replicas());
    }
  }

  private void createPolicy() {
    metrics = new RouterMetrics(registry, set.deployment().toString(),
        RequestRouters.label(set.routerClass()));
    metrics.replicas(set.replicas().size());
    try {
      policy = RequestRouters.create(set.routerClass(), set.routerKwargs(),
          new RouterContext(loads, metrics, new SplittableRandom()));
      policy.onReplicaSetChanged(set.replicas());
      error = "";
    } catch (IllegalArgumentException e) {
      policy = null;
      error = "deployment " + set.deployment() + ": " + e.getMessage();
    }
  }

  /** The deployment was removed (or the router stopped): its gauges are dropped. */
  public void retire() {
    metrics.retire();
  }

  public ReplicaSet set() {
    return set;
  }

  /** Why this deployment cannot route (its policy failed to load), if so. */
  public Optional<String> error() {
    return policy == null ? Optional.of(error) : Optional.empty();
  }

  /** The capacity-queue policy, when this deployment leases capacity instead of ranking. */
  public Optional<CapacityQueueRouter> leasePolicy() {
    return policy instanceof CapacityQueueRouter lease ? Optional.of(lease) : Optional.empty();
  }

  /** The policy's ranks for a request, timed. */
  public List<List<ReplicaInfo>> rank(PendingRequest request) {
    long start = System.nanoTime();
    List<List<ReplicaInfo>> ranks = policy.chooseReplicas(set.replicas(), request);
    boolean found = false;
    for (List<ReplicaInfo> rank : ranks) {
      if (!rank.isEmpty()) {
        found = true;
        break;
      }
    }
    metrics.decided(System.nanoTime() - start, found);
    return ranks;
  }

  /** The request went to rank {@code rank} (0 = first). */
  public void routed(PendingRequest request, int rank) {
    metrics.rankUsed(rank);
    policy.onRouted(request, rank);
  }

  public void completed(String replicaId, String requestId) {
    if (policy != null) {
      policy.onRequestCompleted(replicaId, requestId);
    }
  }

  public RouterMetrics metrics() {
    return metrics;
  }

}
