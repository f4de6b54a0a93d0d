package dev.sluice.deploy;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.config.EngineConfig;
import dev.sluice.replica.engine.MeteredEngine;
import dev.sluice.replica.engine.SimulatedEngine;
import dev.sluice.replica.engine.TtftHistogram;
import dev.sluice.replica.http.ReplicaEndpointSettings;
import dev.sluice.replica.http.ReplicaHttpHandler;
import dev.sluice.replica.http.ReplicaServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice engine-sim}: the simulated engine alone, as an OpenAI-compatible server. */
@Command(name = "engine-sim", mixinStandardHelpOptions = true,
    description = "Serve the simulated engine alone (no cluster) as an OpenAI-compatible server.")
final class EngineSimCommand implements Callable<Integer> {

  @Option(names = "--port", defaultValue = "30000", description = "Port (default: 30000).")
  int port;

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Interface.")
  String host;

  @Option(names = "--model", defaultValue = "sluice-sim", description = "Model id.")
  String model;

  @Option(names = "--ttft-ms", defaultValue = "20", description = "Time to first token (ms).")
  int ttftMs;

  @Option(names = "--itl-ms", defaultValue = "5",
      description = "Inter-token latency (ms); 0 = as fast as possible.")
  int itlMs;

  @Option(names = "--max-tokens", defaultValue = "128",
      description = "Output length when a request sets none.")
  int maxTokens;

  @Option(names = "--max-num-seqs", defaultValue = "256",
      description = "Requests generated at once; more wait (default: 256).")
  int maxNumSeqs;

  @Option(names = "--kv-cache-blocks", defaultValue = "4096",
      description = "Prefix-cache capacity in 16-token blocks (default: 4096).")
  int kvCacheBlocks;

  @Option(names = "--max-ongoing-requests", defaultValue = "1024",
      description = "Concurrent requests before 503 replica_at_capacity.")
  int maxOngoing;

  @Override
  public Integer call() throws Exception {
    if (ttftMs < 0 || itlMs < 0 || maxTokens < 1 || maxOngoing < 1 || maxNumSeqs < 1
        || kvCacheBlocks < 1) {
      throw new IllegalArgumentException("--ttft-ms/--itl-ms: >= 0; --max-tokens, "
          + "--max-ongoing-requests, --max-num-seqs, --kv-cache-blocks: >= 1");
    }
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "sluice-engine-sim",
        // A plain server, not a cluster node: no cluster extensions (Distributed Data needs one).
        ConfigFactory.parseString("pekko.actor.provider = local\npekko.extensions = []")
            .withFallback(ConfigFactory.load()));
    // No replica id: like vLLM, the server does not name itself in x-sluice-served-by (a replica
    // running it as its engine is named by the ingress).
    var handler = new ReplicaHttpHandler(system, new ReplicaEndpointSettings(
        "", model, maxOngoing, maxTokens, 1 << 20, 8 << 20,
        Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(10)),
        MeteredEngine.exporting(new SimulatedEngine(new EngineConfig(EngineConfig.SIMULATED,
            ttftMs, itlMs, maxTokens, 1 << 20, maxNumSeqs, kvCacheBlocks)),
            TtftHistogram.ENGINE_SIM_BOUNDS));
    var binding = ReplicaServer.bind(system, host, List.of(port), handler)
        .toCompletableFuture().get();
    binding.addToCoordinatedShutdown(Duration.ofSeconds(5), system);
    System.out.println("Simulated engine serving " + model + " at http://" + host + ":"
        + binding.localAddress().getPort() + "/v1/chat/completions");
    system.getWhenTerminated().toCompletableFuture().get();
    return 0;
  }
}
