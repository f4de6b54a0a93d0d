package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.config.LlmConfig;
import dev.sluice.replica.NodeAgent;
import dev.sluice.replica.ReplicaActor;
import dev.sluice.replica.ReplicaSpec;
import dev.sluice.replica.ReplicaStatusUpdate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A controller that takes over replicas whose servers hold GPUs counts them from the specs the
 * node reports: with both of a node's GPUs taken by adopted replicas, a third replica of the
 * deployment is started nowhere, and the status says it waits. The node is a probe answering
 * as a NodeAgent would.
 */
class GpuAdoptionIT {

  private static final ActorTestKit testKit = OneNodeCluster.start("control", "replica");

  private static final ControllerSettings SETTINGS = ControllerSettings.fromConfig(
      ConfigFactory.parseString("sluice.controller.reconcile-interval = 100ms")
          .withFallback(ConfigFactory.load()));

  private static final ObjectMapper JSON = new ObjectMapper();


  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void adoptedReplicasKeepTheirGpusSoNoReplicaIsStartedWhereNoneIsFree() throws Exception {
    ApplicationsConfig apps = GpuApps.oneGpuServer(3);
    LlmConfig llm = apps.applications().get(0).llmConfigs().get(0);
    TestProbe<NodeAgent.Command> node = testKit.createTestProbe();
    testKit.system().receptionist().tell(Receptionist.register(NodeAgent.KEY, node.ref()));
    List<NodeAgent.RunningReplica> running = new ArrayList<>();
    for (String device : List.of("0", "1")) {
      TestProbe<ReplicaActor.Command> replica = testKit.createTestProbe();
      ReplicaId id = ReplicaId.random(new DeploymentId("llm", "ext"));
      ReplicaInfo info = new ReplicaInfo(id, "n", "127.0.0.1", 1, 8, ReplicaState.RUNNING,
          List.of("ext"));
      running.add(new NodeAgent.RunningReplica(new ReplicaSpec(id, llm),
          new ReplicaStatusUpdate(info, "", replica.ref(), List.of(device))));
    }

    var controller = testKit.spawn(Controller.create(SETTINGS, apps));
    NodeAgent.Adopt adopt = (NodeAgent.Adopt) node.fishForMessage(Duration.ofSeconds(30),
        message -> message instanceof NodeAgent.Adopt ? FishingOutcomes.complete()
            : FishingOutcomes.fail("before the adoption: " + message)).get(0);
    adopt.replyTo().tell(new NodeAgent.NodeReplicas(node.ref(), running, List.of("0", "1")));

    TestProbe<Controller.StatusDocument> status = testKit.createTestProbe();
    JsonNode deployment = status.awaitAssert(Duration.ofSeconds(10), () -> {
      controller.tell(new Controller.GetStatus(status.ref()));
      JsonNode now = JSON.readTree(status.receiveMessage().json()).path("applications").get(0)
          .path("deployments").get(0);
      assertThat(now.path("message").asText()).endsWith("waiting for GPUs: each replica needs "
          + "1 (num_gpus); 0 of 2 free on " + testKit.system().address()
          + " (sluice.replica.gpus)");
      return now;
    });
    assertThat(deployment.path("replicas")).hasSize(2);
    node.expectNoMessage(Duration.ofMillis(500));  // five reconciles: no SpawnReplica
  }
}
