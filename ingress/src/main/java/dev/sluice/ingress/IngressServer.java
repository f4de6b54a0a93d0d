package dev.sluice.ingress;

import com.typesafe.config.Config;
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
 * for direct streaming; for the relayed path, the splice's reader in front of Pekko HTTP.
 */
public final class IngressServer {

  private static final String LOOPBACK = "127.0.0.1";

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
      return startRelayed(system, router, settings, view, onFatal);
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

  /**
   * The relayed path's Pekko HTTP server: a completion's body is read by BoundedBody, past the
   * parser's cap (see RelayedPath), and anything else that reads a body stops at it. Every
   * completion in flight holds one connection from the front, so the front's limit on
   * connections is this server's too (at Pekko's default, 1,024, a burst of 1,200 relayed
   * streams had 176 connections reset).
   */
  static ServerSettings relayedServerSettings(Config config, IngressSettings settings) {
    ServerSettings server = OpenAiParsingErrors.applyTo(ServerSettings.create(config));
    return server.withMaxConnections(settings.splice().maxConnections())
        .withParserSettings(server.getParserSettings()
            .withMaxContentLength(BoundedBody.serverCap(settings.maxRequestBytes())));
  }

  /**
   * The relayed path: Pekko HTTP's server on loopback (an ephemeral port), behind the splice's
   * strict reader on the ingress's port ({@link RelayedFront} says why).
   */
  private static CompletionStage<IngressBinding> startRelayed(ActorSystem<?> system,
      ActorRef<LLMRouter.Command> router, IngressSettings settings, ReplicaSetView view,
      Consumer<Throwable> onFatal) {
    return Http.get(system).newServerAt(LOOPBACK, 0)
        .withSettings(relayedServerSettings(system.settings().config(), settings))
        .bind(new IngressHandler(system, router, view, settings,
            IngressObserver.off("relayed")))
        .thenCompose(inner -> {
          try {
            SpliceServer front = SpliceServer.bind(settings.host(), settings.port(),
                settings.splice(), new RelayedFront(LOOPBACK, inner.localAddress().getPort(),
                    new LocalRoutes(view), settings.edgePolicy()), onFatal,
                IngressObserver.fromConfig(system.settings().config(), "relayed"));
            return CompletableFuture.completedFuture(IngressBinding.of(front, inner));
          } catch (IOException e) {
            inner.unbind();
            return CompletableFuture.failedFuture(e);
          }
        });
  }
}
