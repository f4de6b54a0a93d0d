package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.config.ApplicationsConfigParser;
import dev.sluice.replica.NodeAgent;
import dev.sluice.replica.ReplicaNodeSettings;
import dev.sluice.replica.ReplicaSpec;
import dev.sluice.replica.ReplicaStatusUpdate;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A controller that takes over (after a failover or a restart) adopts what the replica nodes
 * run: the same replica ids keep serving, nothing is started for them, and a replica no
 * deployment wants is stopped. A real NodeAgent and real replica endpoints on loopback.
 */
class ControllerAdoptionIT {

  private static final ActorTestKit testKit = OneNodeCluster.start("control", "replica");

  private static final ControllerSettings SETTINGS = ControllerSettings.fromConfig(
      ConfigFactory.parseString("""
          sluice.controller {
            reconcile-interval = 100ms
            publish-interval = 200ms
            replica-startup-timeout = 30s
            restart-backoff-min = 50ms
            drain-delay = 100ms
            orphan-grace = 0s
          }
          """).withFallback(ConfigFactory.load()));


  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void aNewControllerAdoptsTheRunningReplicasAndStopsTheUnwanted() throws Exception {
    var node = testKit.spawn(NodeAgent.create(new ReplicaNodeSettings("127.0.0.1", "127.0.0.1",
        List.of(0), 1 << 20, Duration.ofSeconds(5), Duration.ofSeconds(5),
        Duration.ofSeconds(5), Duration.ofMillis(50), Duration.ofSeconds(1))));
    ApplicationsConfig apps = ApplicationsConfigParser.parse("""
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: sim}
                deployment_config: {num_replicas: 2, max_ongoing_requests: 3}
        """);
    TestProbe<ReplicaSet> sets = testKit.createTestProbe();
    testKit.spawn(ReplicaSetTopic.behavior()).tell(ReplicaSetTopic.subscribe(sets.ref()));

    var first = testKit.spawn(Controller.create(SETTINGS, apps));
    Set<String> before = ids(awaitRunning(sets, 2));

    // A replica of a deployment nobody wants (left behind by an older desired state).
    TestProbe<ReplicaStatusUpdate> orphanReports = testKit.createTestProbe();
    var orphanLlm = ApplicationsConfigParser.parse("""
        applications:
          - name: gone
            llm_configs:
              - model_loading_config: {model_id: old}
        """).applications().get(0).llmConfigs().get(0);
    node.tell(new NodeAgent.SpawnReplica(new ReplicaSpec(
        ReplicaId.random(new DeploymentId("gone", "old")), orphanLlm), orphanReports.ref()));
    ReplicaInfo orphan = orphanReports.fishForMessage(Duration.ofSeconds(10), update ->
        update.info().state() == ReplicaState.RUNNING ? FishingOutcomes.complete()
            : FishingOutcomes.continueAndIgnore()).get(0).info();
    assertThat(answers(orphan.port())).isTrue();

    testKit.stop(first);
    // Its successor starts from a different seed: the stored desired state must win.
    var second = testKit.spawn(Controller.create(SETTINGS, ApplicationsConfigParser.parse("""
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: sim}
                deployment_config: {num_replicas: 5}
        """)));

    TestProbe<ReplicaSet> laterSets = testKit.createTestProbe();
    testKit.spawn(ReplicaSetTopic.behavior()).tell(ReplicaSetTopic.subscribe(laterSets.ref()));
    ReplicaSet adopted = awaitRunning(laterSets, 2);
    assertThat(ids(adopted)).isEqualTo(before);
    TestProbe<ReplicaStatus> status = testKit.createTestProbe();
    // Several reconcile rounds later, still exactly the same replicas: nothing was started.
    long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
    while (System.nanoTime() < until) {
      second.tell(new Controller.GetReplicas(status.ref()));
      assertThat(status.receiveMessage().replicas()).extracting(r -> r.id().toString())
          .containsExactlyInAnyOrderElementsOf(before);
    }
    status.awaitAssert(Duration.ofSeconds(10), () -> {
      assertThat(answers(orphan.port())).as("the unwanted replica stopped").isFalse();
      return null;
    });
  }

  private static ReplicaSet awaitRunning(TestProbe<ReplicaSet> sets, int count) {
    return sets.fishForMessage(Duration.ofSeconds(15), set -> set.replicas().size() == count
        ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore()).get(0);
  }

  private static Set<String> ids(ReplicaSet set) {
    return set.replicas().stream().map(r -> r.id().toString()).collect(Collectors.toSet());
  }

  private static boolean answers(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException refused) {
      return false;
    }
  }
}
