package dev.sluice.capacity.bench;

import com.typesafe.config.ConfigFactory;
import dev.sluice.capacity.AcquireResult;
import dev.sluice.capacity.CapacityQueue;
import dev.sluice.capacity.CapacityQueueSettings;
import dev.sluice.capacity.CapacitySnapshot;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.metrics.SluiceMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * Acquire + release round trips through the CapacityQueue actor from one JVM: batches of 1,000
 * acquires (each an ask with its own temporary actor), each lease released as soon as it is
 * granted; 4 replicas with room for the whole batch. Every message goes through the Kryo
 * serializer ({@code serialize-messages = on}), as from another node.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AcquireReleaseBenchmark {

  private static final int BATCH = 1000;
  private static final DeploymentId DEPLOYMENT = new DeploymentId("llm", "m");

  private ActorTestKit testKit;
  private ActorRef<CapacityQueue.Command> queue;

  @Setup(Level.Trial)
  public void setUp() {
    testKit = ActorTestKit.create("queue-bench", ConfigFactory.parseString(
        "pekko.actor.serialize-messages = on\npekko.loglevel = WARNING")
        .withFallback(ConfigFactory.load()));
    queue = testKit.spawn(CapacityQueue.create(new CapacityQueueSettings(Duration.ofSeconds(60)),
        new SluiceMetrics(new PrometheusRegistry())));
    List<ReplicaInfo> replicas = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      replicas.add(new ReplicaInfo(new ReplicaId("llm", "m", "replica" + i), "node", "127.0.0.1",
          1, BATCH, ReplicaState.RUNNING, List.of("m")));
    }
    var topic = testKit.spawn(ReplicaSetTopic.behavior());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (snapshot().replicas().size() < 4) {
      topic.tell(ReplicaSetTopic.publish(new ReplicaSet(DEPLOYMENT, 1, "/", List.of("m"),
          "capacity-queue", Map.of(), replicas)));
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("queue never received the replica set");
      }
    }
  }

  private CapacitySnapshot snapshot() {
    return AskPattern.<CapacityQueue.Command, CapacitySnapshot>ask(queue,
        CapacityQueue.GetSnapshot::new, Duration.ofSeconds(3), testKit.scheduler())
        .toCompletableFuture().join();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    testKit.shutdownTestKit();
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void acquireThenRelease() {
    CompletableFuture<?>[] done = new CompletableFuture<?>[BATCH];
    for (int i = 0; i < BATCH; i++) {
      done[i] = AskPattern.<CapacityQueue.Command, AcquireResult>ask(queue,
              replyTo -> new CapacityQueue.Acquire(DEPLOYMENT, 0, replyTo),
              Duration.ofSeconds(10), testKit.scheduler())
          // Pekko's CompletionStage would run even thenAccept on the common pool (a new thread
          // per call on 2 cores): give it the actor system's dispatcher.
          .thenAcceptAsync(result -> queue.tell(new CapacityQueue.Release(
              ((AcquireResult.Granted) result).lease().id())), testKit.system().executionContext())
          .toCompletableFuture();
    }
    CompletableFuture.allOf(done).join();
  }
}
