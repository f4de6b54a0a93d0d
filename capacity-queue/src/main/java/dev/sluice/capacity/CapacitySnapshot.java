package dev.sluice.capacity;

import dev.sluice.core.serialization.ClusterMessage;
import java.util.List;

/**
 * What the queue holds right now, for operators, the dashboard and tests.
 *
 * @param unknownReleases releases of lease ids the queue did not hold (a second release, or a
 *     lease already reaped): counted, never applied
 */
public record CapacitySnapshot(
    List<ReplicaCapacity> replicas,
    int leases,
    int waiters,
    long granted,
    long released,
    long reaped,
    long unknownReleases)
    implements ClusterMessage {

  public CapacitySnapshot {
    replicas = List.copyOf(replicas);
  }

  /**
   * One replica's accounting.
   *
   * @param untracked in-flight work the replica reported beyond the queue's leases (e.g. after
   *     a queue restart)
   */
  public record ReplicaCapacity(String replicaId, int capacity, int leases, int untracked)
      implements ClusterMessage {

    public int inFlight() {
      return leases + untracked;
    }
  }

  public int totalInFlight() {
    return replicas.stream().mapToInt(ReplicaCapacity::inFlight).sum();
  }
}
