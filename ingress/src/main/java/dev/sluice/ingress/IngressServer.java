package dev.sluice.ingress;

import dev.sluice.capacity.CapacityQueue;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.ingress.splice.SpliceServer;
import dev.sluice.router.LLMRouter;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;

/**
 * Starts the ingress's HTTP server: the splice (bytes from the replica's socket to the client's)
 * for direct streaming, or Pekko HTTP for the relayed path and the {@code pekko-http} data path.
 */
public final class IngressServer {

  private IngressServer() {}

  /**
   * Binds the ingress. {@code view} is the ingress's knowledge of replicas (kept current by a
   * {@link ReplicaDirectory}); {@code queue} is the CapacityQueue, whose leases this ingress
   * releases when streams end.
   */
  public static CompletionStage<IngressBinding> start(ActorSystem<?> system,
      ActorRef<LLMRouter.Command> router, IngressSettings settings, ReplicaSetView view,
      Optional<ActorRef<CapacityQueue.Command>> queue) {
    IngressHandler handler = new IngressHandler(system, router, view, settings, queue);
    if (settings.directStreaming() && settings.dataPath() == IngressSettings.DataPath.SPLICE) {
      SpliceRouting routing = new SpliceRouting(system,
          new DirectRouting(system, router, view, settings, queue), handler, settings);
      try {
        return CompletableFuture.completedFuture(IngressBinding.of(SpliceServer.bind(
            settings.host(), settings.port(), settings.splice(), routing)));
      } catch (IOException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    return Http.get(system).newServerAt(settings.host(), settings.port()).bind(handler)
        .thenApply(IngressBinding::of);
  }

  public static CompletionStage<IngressBinding> start(ActorSystem<?> system,
      ActorRef<LLMRouter.Command> router, IngressSettings settings, ReplicaSetView view) {
    return start(system, router, settings, view, Optional.empty());
  }
}
