package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.TopicCounts;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Two cluster nodes on loopback, each with its shared topic actors. */
class NodeTopicsTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Config CLUSTER = ConfigFactory.parseString("""
          pekko.actor.provider = cluster
          pekko.remote.artery.canonical.hostname = "127.0.0.1"
          pekko.remote.artery.canonical.port = 0
          pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
          """)
      .withFallback(ConfigFactory.parseResources("application-test-base.conf"))
      .withFallback(ConfigFactory.load());
  private static final ActorTestKit replicaNode = ActorTestKit.create("topics", CLUSTER);
  private static final ActorTestKit controlNode = ActorTestKit.create("topics", CLUSTER);

  @BeforeAll
  static void formCluster() {
    Cluster first = Cluster.get(replicaNode.system());
    first.manager().tell(Join.create(first.selfMember().address()));
    Cluster second = Cluster.get(controlNode.system());
    second.manager().tell(Join.create(first.selfMember().address()));
    Await.until(WAIT, "both nodes up", () -> {
      var members = new java.util.ArrayList<org.apache.pekko.cluster.Member>();
      second.state().getMembers().forEach(members::add);
      return members.size() == 2
          && members.stream().allMatch(member -> member.status() == MemberStatus.up());
    });
  }

  @AfterAll
  static void stop() {
    controlNode.shutdownTestKit();
    replicaNode.shutdownTestKit();
  }

  private static ReplicaLoad load(int ongoing) {
    return new ReplicaLoad(ReplicaId.parse("llm#sim#abcd1234"), ongoing, 0, 8, 0, 0);
  }

  @Test
  void aReportCrossesToANodeOnceAndReachesEverySubscriberThere() {
    // The router, the controller and the capacity queue on one node: three subscribers.
    List<TestProbe<ReplicaLoads>> subscribers = List.of(controlNode.createTestProbe(),
        controlNode.createTestProbe(), controlNode.createTestProbe());
    var controlTopic = NodeTopics.get(controlNode.system()).replicaLoads();
    subscribers.forEach(probe -> controlTopic.tell(Topic.subscribe(probe.ref())));
    var replicaTopic = NodeTopics.get(replicaNode.system()).replicaLoads();
    Await.until(WAIT, "the replica node sees the control node's topic",
        () -> TopicCounts.of(replicaNode, replicaTopic).topicInstanceCount() == 1);

    replicaTopic.tell(Topic.publish(ReplicaLoads.of(load(3))));

    for (TestProbe<ReplicaLoads> probe : subscribers) {
      assertThat(probe.receiveMessage(WAIT).loads().get(0).ongoing()).isEqualTo(3);
      probe.expectNoMessage(Duration.ofMillis(200));
    }
    // One topic actor on the control node, whatever its number of subscribers: one message.
    assertThat(TopicCounts.of(replicaNode, replicaTopic).topicInstanceCount()).isEqualTo(1);
    assertThat(TopicCounts.of(controlNode, controlTopic).localSubscriberCount()).isEqualTo(3);
    subscribers.forEach(probe -> controlTopic.tell(Topic.unsubscribe(probe.ref())));
  }

  @Test
  void everyCallerOnANodeGetsTheSameTopicActors() {
    NodeTopics once = NodeTopics.get(controlNode.system());
    NodeTopics again = NodeTopics.get(controlNode.system());
    assertThat(again.replicaLoads()).isSameAs(once.replicaLoads());
    assertThat(again.replicaSets()).isSameAs(once.replicaSets());
    assertThat(again.nodeStats()).isSameAs(once.nodeStats());
    assertThat(NodeTopics.get(replicaNode.system()).replicaSets())
        .isNotEqualTo(once.replicaSets());
  }

  /** Subscribes through a message adapter, as the singletons do, then stops when told. */
  private static Behavior<String> adapterSubscriber() {
    return Behaviors.setup(context -> {
      NodeTopics.get(context.getSystem()).replicaSets().tell(Topic.subscribe(
          context.messageAdapter(ReplicaSet.class, set -> "a replica set")));
      return Behaviors.receiveMessage(any -> Behaviors.stopped());
    });
  }

  @Test
  void aSubscriberThatStopsIsDropped() {
    var topic = NodeTopics.get(controlNode.system()).replicaSets();
    int before = TopicCounts.of(controlNode, topic).localSubscriberCount();
    ActorRef<String> subscriber = controlNode.spawn(adapterSubscriber());
    Await.until(WAIT, "subscribed",
        () -> TopicCounts.of(controlNode, topic).localSubscriberCount() == before + 1);

    subscriber.tell("stop");

    Await.until(WAIT, "the stopped subscriber's adapter is dropped",
        () -> TopicCounts.of(controlNode, topic).localSubscriberCount() == before);
  }
}
