package dev.sluice.core;

import dev.sluice.core.serialization.ClusterMessage;
import java.util.List;

/**
 * One node's {@link ReplicaLoad} reports, published together on {@link ReplicaLoadTopic}: the
 * replicas whose load changed since the node's last batch, or, as its heartbeat, every replica
 * the node runs. A node with many replicas sends the control node one message where it sent one
 * per replica.
 */
public record ReplicaLoads(List<ReplicaLoad> loads) implements ClusterMessage {

  public ReplicaLoads {
    loads = List.copyOf(loads);
  }

  public static ReplicaLoads of(ReplicaLoad... loads) {
    return new ReplicaLoads(List.of(loads));
  }
}
