package dev.sluice.ingress;

import dev.sluice.ingress.splice.SpliceServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.ServerBinding;

/** A bound ingress, whichever data path serves it. */
public interface IngressBinding {

  InetSocketAddress localAddress();

  /** Stops accepting connections; open ones go on. */
  CompletionStage<Void> unbind();

  /**
   * Unbinds when the node shuts down and gives answers in flight up to {@code deadline} to
   * finish before their connections are closed.
   */
  void addToCoordinatedShutdown(Duration deadline, ActorSystem<?> system);

  static IngressBinding of(ServerBinding binding) {
    return new IngressBinding() {
      @Override
      public InetSocketAddress localAddress() {
        return binding.localAddress();
      }

      @Override
      public CompletionStage<Void> unbind() {
        return binding.unbind().thenApply(done -> null);
      }

      @Override
      public void addToCoordinatedShutdown(Duration deadline, ActorSystem<?> system) {
        binding.addToCoordinatedShutdown(deadline, system);
      }
    };
  }

  /**
   * The relayed path: the splice in front ({@code front}, the client's address) and the Pekko
   * HTTP server behind it on loopback ({@code inner}), which stops once the answers it is
   * serving have ended.
   */
  static IngressBinding of(SpliceServer front, ServerBinding inner) {
    IngressBinding edge = of(front);
    return new IngressBinding() {
      @Override
      public InetSocketAddress localAddress() {
        return edge.localAddress();
      }

      @Override
      public CompletionStage<Void> unbind() {
        return edge.unbind().thenCompose(v -> inner.unbind()).thenApply(done -> null);
      }

      @Override
      public void addToCoordinatedShutdown(Duration deadline, ActorSystem<?> system) {
        edge.addToCoordinatedShutdown(deadline, system);
        CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseServiceRequestsDone(),
            "sluice-relayed-server-drain",
            () -> inner.terminate(deadline).thenApply(terminated -> Done.getInstance()));
      }
    };
  }

  static IngressBinding of(SpliceServer server) {
    return new IngressBinding() {
      @Override
      public InetSocketAddress localAddress() {
        return server.localAddress();
      }

      @Override
      public CompletionStage<Void> unbind() {
        return server.unbind();
      }

      @Override
      public void addToCoordinatedShutdown(Duration deadline, ActorSystem<?> system) {
        CoordinatedShutdown shutdown = CoordinatedShutdown.get(system);
        shutdown.addTask(CoordinatedShutdown.PhaseServiceUnbind(), "sluice-splice-unbind",
            () -> server.unbind().thenApply(v -> Done.getInstance()));
        shutdown.addTask(CoordinatedShutdown.PhaseServiceRequestsDone(), "sluice-splice-drain",
            () -> CompletableFuture.supplyAsync(() -> {
              server.terminate(deadline);
              return Done.getInstance();
            }));
      }
    };
  }
}
