package dev.sluice.capacity;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.Objects;

/**
 * A capacity lease: one slot of {@code replica} counted as in flight until released (or reaped
 * after the TTL).
 *
 * @param id unique across queue restarts
 * @param issuedAtMillis when the queue granted it (its own clock, for operators)
 */
public record Lease(String id, ReplicaInfo replica, long issuedAtMillis) implements ClusterMessage {

  public Lease {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(replica, "replica");
  }
}
