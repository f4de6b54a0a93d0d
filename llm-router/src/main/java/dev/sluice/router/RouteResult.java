package dev.sluice.router;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.Objects;
import java.util.Optional;

/** The router's answer: a replica (picked, or with a reserved slot), or why there is none. */
public sealed interface RouteResult extends ClusterMessage {

  /**
   * The chosen replica (pick-only). The router only picks; the request goes there directly.
   *
   * @param leaseId a CapacityQueue lease the caller must release exactly once when the request
   *     ends (capacity-queue policy); empty otherwise
   */
  record Routed(ReplicaInfo replica, Optional<String> leaseId) implements RouteResult {
    public Routed {
      Objects.requireNonNull(replica, "replica");
      Objects.requireNonNull(leaseId, "leaseId");
    }

    public Routed(ReplicaInfo replica) {
      this(replica, Optional.empty());
    }
  }

  /**
   * The chosen replica with a slot reserved on it (choose): the request must carry
   * {@code token} so the replica uses that slot; {@code ongoing} is the replica's true count.
   */
  record Reserved(ReplicaInfo replica, String token, int ongoing) implements RouteResult {
    public Reserved {
      Objects.requireNonNull(replica, "replica");
      Objects.requireNonNull(token, "token");
    }
  }

  /** Nothing can be chosen; {@code detail} says why in words. */
  record NotRouted(ServeReason reason, String detail) implements RouteResult {
    public NotRouted {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(detail, "detail");
    }
  }
}
