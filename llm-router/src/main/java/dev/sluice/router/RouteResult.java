package dev.sluice.router;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.Objects;

/** The router's answer: a replica, or why there is none. */
public sealed interface RouteResult extends ClusterMessage {

  /** The chosen replica. The router only picks; the request goes there directly. */
  record Routed(ReplicaInfo replica) implements RouteResult {
    public Routed {
      Objects.requireNonNull(replica, "replica");
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
