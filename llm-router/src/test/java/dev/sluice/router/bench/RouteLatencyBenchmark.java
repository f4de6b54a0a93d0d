package dev.sluice.router.bench;

import com.typesafe.config.ConfigFactory;
import dev.sluice.capacity.CapacityQueue;
import dev.sluice.capacity.CapacityQueueSettings;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.router.LLMRouter;
import dev.sluice.router.RouteRequest;
import dev.sluice.router.RouteResult;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Routing latency as the ingress sees it, one request at a time: a {@code Route} ask to the
 * router singleton answered by {@code round-robin} (a policy call) or by {@code capacity-queue}
 * (the router asks the CapacityQueue for a lease; the lease is released right after). The
 * difference of the two distributions is what capacity leases add to routing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RouteLatencyBenchmark {

  @Param({"round-robin", "capacity-queue"})
  public String policy;

  private ActorTestKit testKit;
  private ActorRef<LLMRouter.Command> router;
  private ActorRef<CapacityQueue.Command> queue;

  @Setup(Level.Trial)
  public void setUp() {
    testKit = ActorTestKit.create("latency-bench", ConfigFactory.parseString(
        "pekko.actor.serialize-messages = on\npekko.loglevel = WARNING")
        .withFallback(ConfigFactory.load()));
    SluiceMetrics metrics = new SluiceMetrics(new PrometheusRegistry());
    queue = testKit.spawn(CapacityQueue.create(new CapacityQueueSettings(Duration.ofSeconds(60)),
        metrics));
    router = testKit.spawn(LLMRouter.create(metrics, Optional.of(queue), Duration.ofSeconds(4)));
    List<ReplicaInfo> replicas = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      replicas.add(new ReplicaInfo(new ReplicaId("llm", "m", "replica" + i), "node", "127.0.0.1",
          1, 1_000_000, ReplicaState.RUNNING, List.of("m")));
    }
    var topic = testKit.spawn(ReplicaSetTopic.behavior());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!(route() instanceof RouteResult.Routed)) {
      topic.tell(ReplicaSetTopic.publish(new ReplicaSet(new DeploymentId("llm", "m"), 1, "/",
          List.of("m"), policy, Map.of(), replicas)));
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("router never routed");
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    testKit.shutdownTestKit();
  }

  @Benchmark
  public RouteResult route() {
    RouteResult result = AskPattern.<LLMRouter.Command, RouteResult>ask(router,
            replyTo -> new LLMRouter.Route(RouteRequest.of("r", Optional.empty()), replyTo),
            Duration.ofSeconds(5), testKit.scheduler())
        .toCompletableFuture().join();
    if (result instanceof RouteResult.Routed routed && routed.leaseId().isPresent()) {
      queue.tell(new CapacityQueue.Release(routed.leaseId().get()));
    }
    return result;
  }
}
