package dev.sluice.router.bench;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.router.load.LoadTracker;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.PolicyMetrics;
import dev.sluice.router.spi.RequestRouter;
import dev.sluice.router.spi.RequestRouters;
import dev.sluice.router.spi.RouterContext;
import dev.sluice.router.testing.Replicas;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decisions per second of each policy, single thread, 64 replicas, the way the router calls it:
 * rank, then take the first replica of the first rank. Session keys and prompts rotate over a
 * fixed pool so that nothing is trivially cached. Prompts for prefix-cache-affinity are 4 KiB:
 * 16 groups sharing a 3 KiB system prompt, each with its own 1 KiB tail.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PolicyBenchmark {

  @Param({"round-robin", "power-of-two", "consistent-hash", "prefix-cache-affinity"})
  public String policy;

  private static final int KEYS = 4096;

  private List<ReplicaInfo> replicas;
  private RequestRouter router;
  private PendingRequest[] requests;
  private int next;

  @Setup
  public void setUp() {
    replicas = Replicas.replicas(64);
    // A frozen clock keeps the reports fresh for the whole run (they would go stale after 10 s).
    LoadTracker loads = new LoadTracker(() -> 0L, LoadTracker.STALE_AFTER);
    SplittableRandom random = new SplittableRandom(17);
    for (ReplicaInfo replica : replicas) {
      loads.onReport(new ReplicaLoad(replica.id(), random.nextInt(32), 0, 64, 0, 0));
    }
    router = RequestRouters.create(policy, Map.of(),
        new RouterContext(loads, PolicyMetrics.NONE, new SplittableRandom(5)));
    router.onReplicaSetChanged(replicas);
    requests = new PendingRequest[KEYS];
    String[] systems = new String[16];
    for (int g = 0; g < systems.length; g++) {
      systems[g] = text("system prompt of group " + g + ". ", 3072);
    }
    for (int i = 0; i < KEYS; i++) {
      requests[i] = new PendingRequest("request-" + i, Optional.of("session-" + i),
          Optional.empty(), Optional.of(systems[i % 16] + text("user turn " + i + " ", 1024)));
    }
  }

  private static String text(String seed, int length) {
    StringBuilder text = new StringBuilder(length);
    while (text.length() < length) {
      text.append(seed).append(text.length()).append(' ');
    }
    return text.substring(0, length);
  }

  @Benchmark
  public ReplicaInfo pick() {
    PendingRequest request = requests[next];
    next = (next + 1) & (KEYS - 1);
    return router.chooseReplicas(replicas, request).get(0).get(0);
  }
}
