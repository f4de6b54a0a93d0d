package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.replica.NodeAgent;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A replica node whose answer to the controller's first question (what it runs, which GPUs it
 * offers) is lost is asked again: until then no replica that needs GPUs is placed on it, and
 * the status says its GPUs are not known yet; once it answers, it gets the replica. The node is
 * a probe answering as a NodeAgent would, and drops the first question.
 */
class AdoptionRetryIT {

  private static final ActorTestKit testKit = OneNodeCluster.start("control", "replica");

  private static final ControllerSettings SETTINGS = ControllerSettings.fromConfig(
      ConfigFactory.parseString("""
          sluice.controller.reconcile-interval = 100ms
          sluice.controller.adoption-timeout = 1s
          """).withFallback(ConfigFactory.load()));

  private static final ObjectMapper JSON = new ObjectMapper();

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void aNodeWhoseAnswerWasLostIsAskedAgainAndThenGivenItsGpuReplica() throws Exception {
    ApplicationsConfig apps = GpuApps.oneGpuServer(1);
    TestProbe<NodeAgent.Command> node = testKit.createTestProbe();
    testKit.system().receptionist().tell(Receptionist.register(NodeAgent.KEY, node.ref()));
    var controller = testKit.spawn(Controller.create(SETTINGS, apps));
    long firstAsked = firstAdopt(node, Duration.ofSeconds(30));  // dropped: never answered

    TestProbe<Controller.StatusDocument> status = testKit.createTestProbe();
    status.awaitAssert(Duration.ofSeconds(10), () -> {
      controller.tell(new Controller.GetStatus(status.ref()));
      assertThat(JSON.readTree(status.receiveMessage().json()).path("applications").get(0)
          .path("deployments").get(0).path("message").asText())
          .endsWith("not known yet on " + testKit.system().address() + " (sluice.replica.gpus)");
      return null;
    });

    // Asked again once the adoption timeout passed, and nothing started there meanwhile.
    NodeAgent.Adopt again = (NodeAgent.Adopt) node.fishForMessage(Duration.ofSeconds(10),
        message -> message instanceof NodeAgent.Adopt ? FishingOutcomes.complete()
            : FishingOutcomes.fail("before the node answered: " + message)).get(0);
    assertThat(System.nanoTime() - firstAsked).isGreaterThanOrEqualTo(
        Duration.ofSeconds(1).toNanos());
    again.replyTo().tell(new NodeAgent.NodeReplicas(node.ref(), List.of(), List.of("0")));

    NodeAgent.SpawnReplica spawn = (NodeAgent.SpawnReplica) node.fishForMessage(
        Duration.ofSeconds(10), message -> message instanceof NodeAgent.SpawnReplica
            ? FishingOutcomes.complete()
            : FishingOutcomes.fail("before the replica was started: " + message)).get(0);
    assertThat(spawn.spec().llm().engine().numGpus()).isEqualTo(1);
    node.expectNoMessage(Duration.ofMillis(1500));  // answered: not asked a third time
  }

  private static long firstAdopt(TestProbe<NodeAgent.Command> node, Duration within) {
    node.fishForMessage(within, message -> message instanceof NodeAgent.Adopt
        ? FishingOutcomes.complete() : FishingOutcomes.fail("before the adoption: " + message));
    return System.nanoTime();
  }
}
