package dev.sluice.router.spi;

import dev.sluice.core.ReplicaInfo;
import java.util.List;
import java.util.OptionalInt;

/**
 * What the router knows about replica load: each replica's last report (ongoing + waiting) plus
 * the router's own assignments since then. A report older than the staleness limit (10 s) is
 * unknown; asking about an unknown replica makes the router probe it.
 */
public interface LoadView {

  /** Queue length, or empty when there is no fresh report. */
  OptionalInt queueLength(ReplicaInfo replica);

  /** The best available estimate: the queue length, else the router's own open assignments. */
  int estimatedLoad(ReplicaInfo replica);

  /**
   * {@link #estimatedLoad} of every replica into {@code out} (at least as long as the list): one
   * call per decision instead of one per replica, for policies that look at all of them.
   */
  default void estimatedLoads(List<ReplicaInfo> replicas, int[] out) {
    for (int i = 0; i < replicas.size(); i++) {
      out[i] = estimatedLoad(replicas.get(i));
    }
  }

  /** Whether the replica is known to be at its {@code max_ongoing_requests}. */
  default boolean isKnownFull(ReplicaInfo replica) {
    OptionalInt length = queueLength(replica);
    return length.isPresent() && length.getAsInt() >= replica.maxOngoingRequests();
  }

  /** A view with no knowledge at all (every length unknown, every estimate 0). */
  LoadView NONE = new LoadView() {
    @Override
    public OptionalInt queueLength(ReplicaInfo replica) {
      return OptionalInt.empty();
    }

    @Override
    public int estimatedLoad(ReplicaInfo replica) {
      return 0;
    }
  };
}
