package dev.sluice.router.spi;

import dev.sluice.core.ReplicaInfo;
import java.util.List;

/**
 * A routing policy: orders the candidate replicas of one deployment for one request. The router
 * keeps one instance per deployment and calls it from a single thread (the router actor), so
 * implementations need no locking.
 *
 * <p>Answer: ranks, best first; each rank a list of equally good replicas. On the pick-only path
 * the first replica of the first non-empty rank wins; on the reserve path ranks are tried in
 * order. An empty answer means "no replica can take this request".
 */
public interface RequestRouter {

  List<List<ReplicaInfo>> chooseReplicas(List<ReplicaInfo> candidates, PendingRequest request);

  /** The deployment's replica set changed (replicas added, removed or edited). */
  default void onReplicaSetChanged(List<ReplicaInfo> replicas) {}

  /**
   * The request went to the replica at rank {@code rank} of this policy's answer (0 = the first;
   * higher on the reserve path when earlier ranks rejected it).
   */
  default void onRouted(PendingRequest request, int rank) {}

  /** A request routed earlier has finished on {@code replicaId} (reserve path only). */
  default void onRequestCompleted(String replicaId, String requestId) {}
}
