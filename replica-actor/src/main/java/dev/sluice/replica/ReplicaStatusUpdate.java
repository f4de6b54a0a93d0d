package dev.sluice.replica;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.List;
import java.util.Objects;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A replica's report of its state to whoever spawned it (the controller): sent on every state
 * change, and the only way the controller learns a replica's endpoint.
 *
 * @param detail why (the cause of UNHEALTHY, or empty)
 * @param gpus the GPUs its engine's server holds ({@code num_gpus}), for the status
 */
public record ReplicaStatusUpdate(
    ReplicaInfo info, String detail, ActorRef<ReplicaActor.Command> replica, List<String> gpus)
    implements ClusterMessage {

  public ReplicaStatusUpdate {
    Objects.requireNonNull(info, "info");
    Objects.requireNonNull(detail, "detail");
    Objects.requireNonNull(replica, "replica");
    gpus = List.copyOf(gpus);
  }
}
