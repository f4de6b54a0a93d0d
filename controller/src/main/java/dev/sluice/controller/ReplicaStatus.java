package dev.sluice.controller;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.List;

/** The controller's view of every replica it manages (answer to {@link Controller.GetReplicas}). */
public record ReplicaStatus(List<ReplicaInfo> replicas) implements ClusterMessage {

  public ReplicaStatus {
    replicas = List.copyOf(replicas);
  }
}
