package dev.sluice.core;

import dev.sluice.core.serialization.ClusterMessage;
import java.util.Objects;

/**
 * A replica's report of its own load, published on {@link ReplicaLoadTopic} (with its node's
 * other replicas' reports, {@link ReplicaLoads}) at most every report interval when it changed
 * or requests arrived, and again in its node's heartbeat. Routers add their own assignments
 * since the last report; a report older than the staleness limit counts as unknown.
 *
 * @param ongoing requests holding a slot (running or waiting in the engine)
 * @param waiting requests admitted but waiting for an engine batch slot
 * @param prefixCacheHitRatio engine prefix-cache hit ratio since start (0..1)
 * @param kvCacheUsage share of KV-cache blocks in use (0..1)
 */
public record ReplicaLoad(
    ReplicaId replica,
    int ongoing,
    int waiting,
    int maxOngoingRequests,
    double prefixCacheHitRatio,
    double kvCacheUsage)
    implements ClusterMessage {

  public ReplicaLoad {
    Objects.requireNonNull(replica, "replica");
  }
}
