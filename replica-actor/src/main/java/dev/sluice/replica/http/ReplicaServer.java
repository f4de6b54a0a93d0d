package dev.sluice.replica.http;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * Binds a replica's HTTP endpoint on the first free port of a range (or an ephemeral port), counting
 * accepted connections.
 */
public final class ReplicaServer {

  private ReplicaServer() {}

  /** Tries {@code ports} in order; completes with the first successful binding. */
  public static CompletionStage<ServerBinding> bind(
      ActorSystem<?> system, String host, List<Integer> ports, ReplicaHttpHandler handler) {
    return bindFrom(system, host, ports, 0, handler);
  }

  private static CompletionStage<ServerBinding> bindFrom(
      ActorSystem<?> system, String host, List<Integer> ports, int index,
      ReplicaHttpHandler handler) {
    if (index >= ports.size()) {
      return CompletableFuture.failedFuture(new IllegalStateException(
          "no free port for the replica endpoint on " + host + " in " + describe(ports)));
    }
    Materializer materializer = Materializer.matFromSystem(system);
    return Http.get(system).newServerAt(host, ports.get(index)).connectionSource()
        .to(Sink.foreach(connection -> {
          handler.counters().connections.increment();
          connection.handleWithAsyncHandler(handler, materializer);
        }))
        .run(materializer)
        .handleAsync((binding, failure) -> failure == null
            ? CompletableFuture.completedFuture(binding)
            : bindFrom(system, host, ports, index + 1, handler), system.executionContext())
        .thenComposeAsync(stage -> stage, system.executionContext());
  }

  /** Stops accepting, lets open requests finish for up to {@code deadline}, then closes. */
  public static CompletionStage<?> unbind(ServerBinding binding, Duration deadline) {
    return binding.terminate(deadline);
  }

  private static String describe(List<Integer> ports) {
    return ports.size() == 1 ? String.valueOf(ports.get(0))
        : ports.get(0) + ".." + ports.get(ports.size() - 1);
  }
}
