package dev.sluice.replica;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.ReplicaLoads;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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

  /** A replica's load as a test sets it: due whenever it was set since the last read. */
  private static final class SetLoad implements NodeLoadReporter.LoadSource {
    private final AtomicReference<ReplicaLoad> next = new AtomicReference<>();
    final AtomicInteger reads = new AtomicInteger();

    SetLoad set(ReplicaLoad load) {
      next.set(load);
      return this;
    }

    @Override
    public ReplicaLoad dueLoad() {
      reads.incrementAndGet();
      return next.getAndSet(null);
    }
  }

  private static NodeLoadReporter.Register register(ReplicaLoad first, SetLoad source,
      ActorRef<Void> replica) {
    return new NodeLoadReporter.Register(first.replica(), source.set(first), replica);
  }

  @Test
  void aNewReplicaIsReportedAtOnceAndEachIntervalsDueLoadsGoTogether() {
    TestProbe<ReplicaLoads> topic = testKit.createTestProbe();
    var reporter = testKit.spawn(
        NodeLoadReporter.create(topic(topic), Duration.ofMillis(300), HOUR));
    SetLoad first = new SetLoad();
    SetLoad second = new SetLoad();

    reporter.tell(register(load("aaaa0001", 1), first, replica()));
    assertThat(published(topic)).as("at once, not at the next tick")
        .containsExactly(load("aaaa0001", 1));
    topic.expectNoMessage(Duration.ofMillis(400));  // nothing due: nothing sent

    reporter.tell(register(load("aaaa0002", 5), second, replica()));
    assertThat(published(topic)).as("a second replica at once too")
        .containsExactly(load("aaaa0002", 5));
    topic.expectNoMessage(Duration.ofMillis(400));

    first.set(load("aaaa0001", 2));
    first.set(load("aaaa0001", 3));
    second.set(load("aaaa0002", 6));
    assertThat(published(topic)).as("one batch at the next tick, each one's load then")
        .containsExactlyInAnyOrder(load("aaaa0002", 6), load("aaaa0001", 3));
    topic.expectNoMessage(Duration.ofMillis(400));
  }

  @Test
  void theHeartbeatSendsEveryRunningReplicasLastLoadAndForgetsAStoppedOne() {
    TestProbe<ReplicaLoads> topic = testKit.createTestProbe();
    var reporter = testKit.spawn(NodeLoadReporter.create(topic(topic), Duration.ofMillis(20),
        Duration.ofMillis(300)));
    ActorRef<Void> second = replica();
    reporter.tell(register(load("bbbb0001", 1), new SetLoad(), replica()));
    assertThat(published(topic)).containsExactly(load("bbbb0001", 1));
    reporter.tell(register(load("bbbb0002", 2), new SetLoad(), second));
    assertThat(published(topic)).containsExactly(load("bbbb0002", 2));

    assertThat(published(topic)).as("the heartbeat, with no new load")
        .containsExactly(load("bbbb0001", 1), load("bbbb0002", 2));

    testKit.stop(second);
    topic.awaitAssert(WAIT, () -> {
      assertThat(published(topic)).containsExactly(load("bbbb0001", 1));
      return null;
    });
  }

  @Test
  void aNodeWithNoReplicaLeftSendsNothingAndStopsReading() {
    TestProbe<ReplicaLoads> topic = testKit.createTestProbe();
    var reporter = testKit.spawn(NodeLoadReporter.create(topic(topic), Duration.ofMillis(10),
        Duration.ofMillis(50)));
    topic.expectNoMessage(Duration.ofMillis(300));

    SetLoad source = new SetLoad();
    ActorRef<Void> only = replica();
    reporter.tell(register(load("cccc0001", 1), source, only));
    assertThat(published(topic)).containsExactly(load("cccc0001", 1));
    testKit.stop(only);
    topic.awaitAssert(WAIT, () -> {
      int reads = source.reads.get();
      topic.expectNoMessage(Duration.ofMillis(200));  // no heartbeat either
      assertThat(source.reads.get()).as("reads once the replica is gone").isEqualTo(reads);
      return null;
    });
  }
}
