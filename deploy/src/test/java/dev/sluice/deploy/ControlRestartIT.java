package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The README's layout with one control node: every node gets the same seed list, the control
 * node first and the replica nodes after it. The control node killed and started again rejoins
 * the replica nodes, which ran on, and adopts their replicas; it does not form a cluster of its
 * own that they never join.
 */
class ControlRestartIT {

  private static final int CONTROL = 18701;
  private static final int REPLICA_1 = 18702;
  private static final int REPLICA_2 = 18703;
  private static final int INGRESS = 18711;
  private static final int API = 18721;
  private static final String SEEDS = "127.0.0.1:" + CONTROL + ",127.0.0.1:" + REPLICA_1
      + ",127.0.0.1:" + REPLICA_2;

  @Test
  void aRestartedControlNodeRejoinsItsReplicaNodesAndAdoptsTheirReplicas() throws Exception {
    Path app = TestNodes.appFile(TestNodes.app(2, 0, 1, 8));
    NodeProcess first = NodeProcesses.control(CONTROL, SEEDS, INGRESS, API, Optional.of(app));
    NodeProcess restarted = null;
    try (NodeProcess replicas1 = NodeProcesses.replica(REPLICA_1, SEEDS, "18730-18739");
        NodeProcess replicas2 = NodeProcesses.replica(REPLICA_2, SEEDS, "18740-18749")) {
      JsonNode before = NodeProcesses.await("2 replicas running on the 2 replica nodes",
          Duration.ofSeconds(90), () -> running(2), first, replicas1, replicas2);

      first.process.destroyForcibly().waitFor();  // SIGKILL
      restarted = NodeProcesses.control(CONTROL, SEEDS, INGRESS, API, Optional.of(app));
      JsonNode after = NodeProcesses.await("the restarted control node serving again",
          Duration.ofSeconds(90), () -> running(2).filter(d -> NodeProcesses.members(API, "Up")
              == 3), restarted, replicas1, replicas2);

      assertThat(NodeProcesses.get(API, "/api/applications").orElseThrow()
          .path("replica_nodes").asInt()).as("replica nodes in the control node's cluster")
          .isEqualTo(2);
      assertThat(NodeProcesses.replicaIds(after)).as("the same replicas, adopted")
          .isEqualTo(NodeProcesses.replicaIds(before));
      assertThat(TestNodes.post(INGRESS, "/v1/chat/completions",
          "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":3}")
          .statusCode()).isEqualTo(200);
      assertThat(restarted.output()).doesNotContain("--seed-nodes names only this node");
    } finally {
      first.close();
      if (restarted != null) {
        restarted.close();
      }
    }
  }

  /** The deployment once {@code count} replicas run, as the API sees it. */
  private static Optional<JsonNode> running(int count) {
    return NodeProcesses.deployment(API).filter(d -> {
      TreeSet<String> ids = NodeProcesses.replicaIds(d);
      int running = 0;
      for (JsonNode replica : d.path("replicas")) {
        running += replica.path("state").asText().equals("RUNNING") ? 1 : 0;
      }
      return running == count && ids.size() == count;
    });
  }
}
