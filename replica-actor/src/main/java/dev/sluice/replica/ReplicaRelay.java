package dev.sluice.replica;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.http.ApiError;
import dev.sluice.core.relay.Generate;
import dev.sluice.core.relay.GenerateReply;
import dev.sluice.replica.http.RelayHandler;
import java.util.Optional;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A replica's relayed-path entry point, a child of its {@link ReplicaActor}: takes
 * {@link Generate} messages (the protocol lives in core, so the ingress needs no replica module)
 * and always answers, with the token stream ref or a refusal.
 */
final class ReplicaRelay {

  private ReplicaRelay() {}

  static Behavior<Generate> create(ReplicaId replica, RelayHandler relay) {
    return Behaviors.setup(context -> Behaviors.receiveMessage(generate -> {
      relay.generate(generate).whenCompleteAsync((reply, failure) -> generate.replyTo().tell(
          failure == null ? reply : new GenerateReply.Refused(replica.toString(), 500,
              Optional.empty(), new ApiError(ApiError.Code.INTERNAL,
                  "Replica failed to start generating: " + failure, null).toJson())),
          context.getExecutionContext());
      return Behaviors.same();
    }));
  }
}
