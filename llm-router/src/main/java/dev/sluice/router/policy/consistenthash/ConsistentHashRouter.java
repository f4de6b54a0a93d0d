package dev.sluice.router.policy.consistenthash;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.PolicyMetrics;
import dev.sluice.router.spi.RequestRouter;
import dev.sluice.router.spi.RouterContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code consistent-hash}: session affinity on a hash ring (see {@link HashRing}). Key = the
 * session id, or the request id when there is none (uniform spread). Ranks = the primary, then up
 * to {@code num_fallback_replicas} distinct clockwise successors. The ring is rebuilt only when the
 * set of replica ids changes. No load, locality or model signal is mixed in: a hot session stays
 * on its primary. The router's pick-only path takes the first rank, the primary.
 */
public final class ConsistentHashRouter implements RequestRouter {

  public static final String KEY = "consistent-hash";

  private final int virtualNodes;
  private final int fallbacks;
  private final PolicyMetrics metrics;
  private HashRing ring = new HashRing(List.of(), 1);
  private List<String> ringIds = List.of();
  private ReplicaInfo[] byOwner = new ReplicaInfo[0];
  private List<ReplicaInfo> lastCandidates = List.of();
  private final int[] scratch;

  ConsistentHashRouter(int virtualNodes, int fallbacks, PolicyMetrics metrics) {
    this.virtualNodes = virtualNodes;
    this.fallbacks = fallbacks;
    this.metrics = metrics;
    this.scratch = new int[fallbacks + 1];
  }

  public static ConsistentHashRouter create(RouterContext context, Kwargs kwargs) {
    kwargs.allowOnly("num_virtual_nodes", "num_fallback_replicas");
    return new ConsistentHashRouter(kwargs.positiveInt("num_virtual_nodes", 100),
        kwargs.nonNegativeInt("num_fallback_replicas", 2), context.metrics());
  }

  @Override
  public void onReplicaSetChanged(List<ReplicaInfo> replicas) {
    sync(replicas);
  }

  @Override
  public List<List<ReplicaInfo>> chooseReplicas(
      List<ReplicaInfo> candidates, PendingRequest request) {
    if (candidates != lastCandidates) {
      sync(candidates);
    }
    if (ring.isEmpty()) {
      return List.of();
    }
    String key = request.sessionId().orElse(request.requestId());
    int start = ring.firstPointAtOrAfter(HashRing.hash(key));
    int found = ring.distinctOwnersFrom(start, fallbacks + 1, scratch);
    if (found == 1) {
      return List.of(List.of(byOwner[scratch[0]]));
    }
    List<List<ReplicaInfo>> ranks = new ArrayList<>(found);
    for (int i = 0; i < found; i++) {
      ranks.add(List.of(byOwner[scratch[i]]));
    }
    return ranks;
  }

  /** Affinity: a request with a session stayed on its primary (rank 0) or moved to a successor. */
  @Override
  public void onRouted(PendingRequest request, int rank) {
    if (request.sessionId().isPresent()) {
      metrics.affinity(rank == 0);
    }
  }

  /** Rebuilds the ring if the id set changed; always refreshes the replica infos. */
  private void sync(List<ReplicaInfo> replicas) {
    lastCandidates = replicas;
    List<String> ids = new ArrayList<>(replicas.size());
    Map<String, ReplicaInfo> infos = new HashMap<>();
    for (ReplicaInfo replica : replicas) {
      ids.add(replica.id().uniqueId());
      infos.put(replica.id().uniqueId(), replica);
    }
    ids.sort(null);
    if (!ids.equals(ringIds)) {
      ring = new HashRing(ids, virtualNodes);
      ringIds = ids;
      metrics.indexRebuilt();
    }
    byOwner = new ReplicaInfo[ids.size()];
    for (int i = 0; i < ids.size(); i++) {
      byOwner[i] = infos.get(ids.get(i));
    }
  }
}
