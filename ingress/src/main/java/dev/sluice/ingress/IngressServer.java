package dev.sluice.ingress;

import dev.sluice.capacity.CapacityQueue;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.router.LLMRouter;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;

/** Starts the ingress on a node: its replica directory and its HTTP server. */
public final class IngressServer {

  private IngressServer() {}

  /**
   * Binds the ingress. {@code view} is the ingress's knowledge of replicas (kept current by a
   * {@link ReplicaDirectory}); {@code queue} is the CapacityQueue, whose leases this ingress
   * releases when streams end.
   */
  public static CompletionStage<ServerBinding> start(ActorSystem<?> system,
      ActorRef<LLMRouter.Command> router, IngressSettings settings, ReplicaSetView view,
      Optional<ActorRef<CapacityQueue.Command>> queue) {
    return Http.get(system).newServerAt(settings.host(), settings.port())
        .bind(new IngressHandler(system, router, view, settings, queue));
  }

  public static CompletionStage<ServerBinding> start(ActorSystem<?> system,
      ActorRef<LLMRouter.Command> router, IngressSettings settings, ReplicaSetView view) {
    return start(system, router, settings, view, Optional.empty());
  }
}
