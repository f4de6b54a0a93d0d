package dev.sluice.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.ReplicaLoads;
import dev.sluice.core.ReplicaLoadTopic;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.metrics.SluiceMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class CapacityQueueTest {

  private static final ActorTestKit testKit = ActorTestKit.create(
      ConfigFactory.parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
  private static final DeploymentId DEPLOYMENT = new DeploymentId("llm", "m");
  private static final ReplicaInfo REPLICA = new ReplicaInfo(new ReplicaId("llm", "m", "aaaaaaaa"),
      "node", "127.0.0.1", 1, 2, dev.sluice.core.ReplicaState.RUNNING, List.of("m"));

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static ActorRef<CapacityQueue.Command> queue(Duration ttl) {
    var queue = testKit.spawn(CapacityQueue.create(new CapacityQueueSettings(ttl),
        new SluiceMetrics(new PrometheusRegistry())));
    var sets = testKit.spawn(ReplicaSetTopic.behavior());
    TestProbe<CapacitySnapshot> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(5), () -> {
      sets.tell(ReplicaSetTopic.publish(new ReplicaSet(DEPLOYMENT, 1, "/", List.of("m"),
          "capacity-queue", Map.of(), List.of(REPLICA))));
      queue.tell(new CapacityQueue.GetSnapshot(probe.ref()));
      assertThat(probe.receiveMessage().replicas()).hasSize(1);
      return null;
    });
    return queue;
  }

  private static AcquireResult acquire(ActorRef<CapacityQueue.Command> queue, long timeoutMillis) {
    TestProbe<AcquireResult> probe = testKit.createTestProbe();
    queue.tell(new CapacityQueue.Acquire(DEPLOYMENT, timeoutMillis, probe.ref()));
    return probe.receiveMessage(Duration.ofSeconds(5));
  }

  private static CapacitySnapshot snapshot(ActorRef<CapacityQueue.Command> queue) {
    TestProbe<CapacitySnapshot> probe = testKit.createTestProbe();
    queue.tell(new CapacityQueue.GetSnapshot(probe.ref()));
    return probe.receiveMessage();
  }

  @Test
  void aWaiterGetsTheSlotAReleaseFrees() {
    var queue = queue(Duration.ofSeconds(30));
    var first = (AcquireResult.Granted) acquire(queue, 0);
    acquire(queue, 0);
    TestProbe<AcquireResult> waiter = testKit.createTestProbe();
    queue.tell(new CapacityQueue.Acquire(DEPLOYMENT, 5_000, waiter.ref()));
    waiter.expectNoMessage(Duration.ofMillis(100));

    queue.tell(new CapacityQueue.Release(first.lease().id()));

    assertThat(waiter.receiveMessage()).isInstanceOf(AcquireResult.Granted.class);
  }

  @Test
  void aWaiterIsToldExhaustedWhenItsTimeoutEnds() {
    var queue = queue(Duration.ofSeconds(30));
    acquire(queue, 0);
    acquire(queue, 0);

    assertThat(acquire(queue, 200)).isInstanceOf(AcquireResult.Exhausted.class);
    assertThat(snapshot(queue).waiters()).isZero();
  }

  @Test
  void theReaperReclaimsForgottenLeases() {
    var queue = queue(Duration.ofMillis(300));
    acquire(queue, 0);
    acquire(queue, 0);

    TestProbe<CapacitySnapshot> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(3), () -> {
      queue.tell(new CapacityQueue.GetSnapshot(probe.ref()));
      CapacitySnapshot snapshot = probe.receiveMessage();
      assertThat(snapshot.leases()).isZero();
      assertThat(snapshot.reaped()).isEqualTo(2);
      return null;
    });
    assertThat(acquire(queue, 0)).isInstanceOf(AcquireResult.Granted.class);
  }

  @Test
  void afterARestartItIsUnavailableThenEmptyThenRebuiltFromReports() {
    var queue = queue(Duration.ofSeconds(30));
    acquire(queue, 0);
    var loads = testKit.spawn(ReplicaLoadTopic.behavior());
    var sets = testKit.spawn(ReplicaSetTopic.behavior());

    queue.tell(new CapacityQueue.Restart(500));

    TestProbe<AcquireResult> silent = testKit.createTestProbe();
    queue.tell(new CapacityQueue.Acquire(DEPLOYMENT, 0, silent.ref()));
    silent.expectNoMessage(Duration.ofMillis(200));
    TestProbe<CapacitySnapshot> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(5), () -> {
      // The controller re-publishes its sets every second; the replica reports its load.
      sets.tell(ReplicaSetTopic.publish(new ReplicaSet(DEPLOYMENT, 2, "/", List.of("m"),
          "capacity-queue", Map.of(), List.of(REPLICA))));
      loads.tell(Topic.publish(ReplicaLoads.of(new ReplicaLoad(REPLICA.id(), 1, 0, 2, 0, 0))));
      queue.tell(new CapacityQueue.GetSnapshot(probe.ref()));
      CapacitySnapshot snapshot = probe.receiveMessage(Duration.ofMillis(300));
      assertThat(snapshot.leases()).isZero();
      assertThat(snapshot.totalInFlight()).isEqualTo(1);
      return null;
    });
  }
}
