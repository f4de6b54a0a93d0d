package dev.sluice.replica;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.ReplicaLoads;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class NodeLoadReporterTest {

  private static final ActorTestKit testKit = ActorTestKit.create(ConfigFactory
      .parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
  private static final Duration HOUR = Duration.ofHours(1);
  private static final Duration WAIT = Duration.ofSeconds(5);

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  private static ReplicaLoad load(String replica, int ongoing) {
    return new ReplicaLoad(ReplicaId.parse("llm#sim#" + replica), ongoing, 0, 8, 0, 0);
  }

  /** A stand-in for a replica's actor: what the reporter watches. */
  private static ActorRef<Void> replica() {
    return testKit.spawn(Behaviors.empty());
  }

  /** A load topic of this test's own (one name per test), and a subscriber to it. */
  private static ActorRef<Topic.Command<ReplicaLoads>> topic(TestProbe<ReplicaLoads> subscriber) {
    ActorRef<Topic.Command<ReplicaLoads>> topic = testKit.spawn(
        Topic.create(ReplicaLoads.class, "loads-" + UUID.randomUUID()));
    topic.tell(Topic.subscribe(subscriber.ref()));
    return topic;
  }

  private static List<ReplicaLoad> published(TestProbe<ReplicaLoads> subscriber) {
    return subscriber.receiveMessage(WAIT).loads();
  }

  @Test
  void aReportAfterAQuietIntervalGoesAtOnceAndTheNextOnesTogether() {
    TestProbe<ReplicaLoads> topic = testKit.createTestProbe();
    var reporter = testKit.spawn(
        NodeLoadReporter.create(topic(topic), Duration.ofMillis(500), HOUR));
    ActorRef<Void> first = replica();
    ActorRef<Void> second = replica();

    reporter.tell(new NodeLoadReporter.Report(load("aaaa0001", 1), first));
    assertThat(published(topic)).containsExactly(load("aaaa0001", 1));

    reporter.tell(new NodeLoadReporter.Report(load("aaaa0002", 5), second));
    reporter.tell(new NodeLoadReporter.Report(load("aaaa0001", 2), first));
    reporter.tell(new NodeLoadReporter.Report(load("aaaa0001", 3), first));
    topic.expectNoMessage(Duration.ofMillis(200));
    assertThat(published(topic)).as("one batch at the end of the interval, the last of each")
        .containsExactlyInAnyOrder(load("aaaa0002", 5), load("aaaa0001", 3));
    topic.expectNoMessage(Duration.ofMillis(600));
  }

  @Test
  void theHeartbeatSendsEveryRunningReplicasLastLoadAndForgetsAStoppedOne() {
    TestProbe<ReplicaLoads> topic = testKit.createTestProbe();
    var reporter = testKit.spawn(
        NodeLoadReporter.create(topic(topic), Duration.ZERO, Duration.ofMillis(300)));
    ActorRef<Void> first = replica();
    ActorRef<Void> second = replica();
    reporter.tell(new NodeLoadReporter.Report(load("bbbb0001", 1), first));
    reporter.tell(new NodeLoadReporter.Report(load("bbbb0002", 2), second));
    assertThat(published(topic)).containsExactly(load("bbbb0001", 1));
    assertThat(published(topic)).containsExactly(load("bbbb0002", 2));

    assertThat(published(topic)).as("the heartbeat, with no new report")
        .containsExactly(load("bbbb0001", 1), load("bbbb0002", 2));

    testKit.stop(second);
    topic.awaitAssert(WAIT, () -> {
      assertThat(published(topic)).containsExactly(load("bbbb0001", 1));
      return null;
    });
  }

  @Test
  void aNodeWithNoReplicaSendsNothing() {
    TestProbe<ReplicaLoads> topic = testKit.createTestProbe();
    testKit.spawn(NodeLoadReporter.create(topic(topic), Duration.ZERO, Duration.ofMillis(50)));
    topic.expectNoMessage(Duration.ofMillis(300));
  }
}
