package dev.sluice.router.bench;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.router.LLMRouter;
import dev.sluice.router.RouteRequest;
import dev.sluice.router.RouteResult;
import dev.sluice.router.testing.Replicas;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The router singleton's decision rate as a caller sees it: {@code Route} asks (round-robin, 64
 * replicas) in batches of 1,000 outstanding at once, each answered through a temporary ask actor,
 * with every message serialized and deserialized by the Kryo serializer (as it would be when the
 * caller is on another node).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RouterAskBenchmark {

  private static final int BATCH = 1000;

  private ActorTestKit testKit;
  private ActorRef<LLMRouter.Command> router;

  @Setup(Level.Trial)
  public void setUp() {
    testKit = ActorTestKit.create("ask-bench", ConfigFactory.parseString(
        "pekko.actor.serialize-messages = on\npekko.loglevel = WARNING")
        .withFallback(ConfigFactory.load()));
    router = testKit.spawn(LLMRouter.create(new SluiceMetrics(new PrometheusRegistry())));
    var topic = testKit.spawn(ReplicaSetTopic.behavior());
    ReplicaSet set = new ReplicaSet(new DeploymentId("llm", "m"), 1, "/", List.of("m"),
        "round-robin", Map.of(), Replicas.replicas(64));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!(ask(0).join() instanceof RouteResult.Routed)) {
      topic.tell(ReplicaSetTopic.publish(set));
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("router never received the replica set");
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    testKit.shutdownTestKit();
  }

  private CompletableFuture<RouteResult> ask(int i) {
    return AskPattern.<LLMRouter.Command, RouteResult>ask(router,
        replyTo -> new LLMRouter.Route(RouteRequest.of("r" + i, Optional.empty()), replyTo),
        Duration.ofSeconds(10), testKit.scheduler()).toCompletableFuture();
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void routeAsks() {
    CompletableFuture<?>[] answers = new CompletableFuture<?>[BATCH];
    for (int i = 0; i < BATCH; i++) {
      answers[i] = ask(i);
    }
    CompletableFuture.allOf(answers).join();
  }
}
