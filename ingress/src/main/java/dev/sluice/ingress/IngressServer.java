package dev.sluice.ingress;

import dev.sluice.capacity.CapacityQueue;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.http.BoundedBody;
import dev.sluice.core.http.OpenAiParsingErrors;
import dev.sluice.ingress.splice.SpliceServer;
import dev.sluice.router.LLMRouter;
import dev.sluice.ingress.observe.IngressObserver;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.settings.ServerSettings;

/**
 * Starts the ingress's HTTP server: the splice (bytes from the replica's socket to the client's)
 * for direct streaming, or Pekko HTTP for the relayed path.
 */
public final class IngressServer {

  private IngressServer() {}

  /**
   * Binds the ingress. {@code view} is the ingress's knowledge of replicas (kept current by a
   * {@link ReplicaDirectory}); {@code queue} is the CapacityQueue, whose leases this ingress
   * releases when streams end; {@code onFatal} gets an {@link Error} that stopped one of the
   * splice's selector threads (the node should then end).
   */
  public static CompletionStage<IngressBinding> start(ActorSystem<?> system,
      ActorRef<LLMRouter.Command> router, IngressSettings settings, ReplicaSetView view,
      Optional<ActorRef<CapacityQueue.Command>> queue, Consumer<Throwable> onFatal) {
    if (!settings.directStreaming()) {
      // A completion's body is read by BoundedBody, past this cap (see RelayedPath); anything
      // else that reads a body stops at it.
      ServerSettings server = OpenAiParsingErrors.applyTo(ServerSettings.create(
          system.settings().config()));
      return Http.get(system).newServerAt(settings.host(), settings.port())
          .withSettings(server.withParserSettings(server.getParserSettings()
              .withMaxContentLength(BoundedBody.serverCap(settings.maxRequestBytes()))))
          .bind(new IngressHandler(system, router, view, settings))
          .thenApply(IngressBinding::of);
    }
    SpliceRouting routing = new SpliceRouting(
        new DirectRouting(system, router, view, settings.routeTimeout(), queue),
        new LocalRoutes(view), settings.edgePolicy());
    try {
      return CompletableFuture.completedFuture(IngressBinding.of(SpliceServer.bind(
          settings.host(), settings.port(), settings.splice(), routing, onFatal,
          IngressObserver.fromConfig(system.settings().config(), "direct"))));
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
