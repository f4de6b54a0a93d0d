package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.config.ApplicationsConfigParser;
import dev.sluice.replica.NodeAgent;
import dev.sluice.replica.ReplicaNodeSettings;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The controller with a real NodeAgent and real replica endpoints on loopback. */
class ControllerIT {

  private static final ActorTestKit testKit = OneNodeCluster.start();


  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void keepsTheDesiredReplicasRunningAndPublishesThem() {
    var node = testKit.spawn(NodeAgent.create(new ReplicaNodeSettings("127.0.0.1", "127.0.0.1", List.of(0),
        1 << 20, Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(5),
        Duration.ofMillis(50), Duration.ofSeconds(1))));
    var apps = ApplicationsConfigParser.parse("""
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: sim}
                deployment_config: {num_replicas: 2, max_ongoing_requests: 3}
        """);
    var settings = ControllerSettings.fromConfig(ConfigFactory.parseString("""
        sluice.controller {
          reconcile-interval = 100ms
          publish-interval = 200ms
          replica-startup-timeout = 30s
          restart-backoff-min = 50ms
          drain-delay = 100ms
        }
        """).withFallback(ConfigFactory.load()));
    var controller = testKit.spawn(Controller.create(settings, apps));
    TestProbe<ReplicaSet> sets = testKit.createTestProbe();
    testKit.spawn(ReplicaSetTopic.behavior()).tell(ReplicaSetTopic.subscribe(sets.ref()));

    ReplicaSet running = sets.fishForMessage(Duration.ofSeconds(10), set ->
        set.replicas().size() == 2 ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
            : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore()).get(0);
    assertThat(running.replicas()).allSatisfy(replica -> {
      assertThat(replica.state()).isEqualTo(ReplicaState.RUNNING);
      assertThat(replica.port()).isPositive();
      assertThat(replica.maxOngoingRequests()).isEqualTo(3);
      assertThat(replica.id().toString()).startsWith("llm#sim#");
    });
    assertThat(running.routerClass()).isEqualTo("round-robin");

    // Running replicas report their load to the routers, their node's reports together.
    TestProbe<dev.sluice.core.ReplicaLoads> loads = testKit.createTestProbe();
    testKit.spawn(dev.sluice.core.ReplicaLoadTopic.behavior()).tell(
        org.apache.pekko.actor.typed.pubsub.Topic.subscribe(loads.ref()));
    dev.sluice.core.ReplicaLoad load =
        loads.receiveMessage(Duration.ofSeconds(5)).loads().get(0);
    assertThat(running.replicas()).extracting(ReplicaInfo::id).contains(load.replica());
    assertThat(load.ongoing()).isZero();
    assertThat(load.maxOngoingRequests()).isEqualTo(3);

    TestProbe<ReplicaStatus> status = testKit.createTestProbe();
    controller.tell(new Controller.GetReplicas(status.ref()));
    assertThat(status.receiveMessage().replicas()).hasSize(2);

    // A replica that stops (drained from outside the controller) is replaced.
    Set<String> before = running.replicas().stream().map(r -> r.id().toString())
        .collect(Collectors.toSet());
    ReplicaInfo victim = running.replicas().get(0);
    node.tell(new NodeAgent.StopReplica(victim.id(), 0));
    ReplicaSet replaced = sets.fishForMessage(Duration.ofSeconds(10), set ->
        set.replicas().size() == 2 && !set.replicas().stream().map(r -> r.id().toString())
            .collect(Collectors.toSet()).equals(before)
            ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
            : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore()).get(0);
    assertThat(replaced.replicas()).extracting(r -> r.id().toString())
        .doesNotContain(victim.id().toString());
    assertThat(replaced.version()).isGreaterThan(running.version());
  }
}
