package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.capacity.CapacityQueue;
import dev.sluice.capacity.CapacitySnapshot;
import dev.sluice.core.testing.Await;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.junit.jupiter.api.Test;

/**
 * Scaling and rolling updates through the API on a cluster of separate nodes (a control+ingress
 * node, two replica nodes) while 32 streams run back to back through the ingress: replicas
 * spread over the nodes, scale-in drains without breaking a stream, a spec change replaces every
 * replica (one at a time: a surge of 20 % of 2, rounded up) without a failed request, nothing
 * is left holding capacity, and a node where replicas cannot start does not keep the others from
 * reaching the target.
 */
class ScaleIT {

  private static String app(int ttftMs) {
    return """
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: sim}
                engine_config: {type: simulated, ttft_ms: %d, itl_ms: 20, default_max_tokens: 16}
                deployment_config:
                  num_replicas: 2
                  max_ongoing_requests: 32
                  request_router_config: {request_router_class: capacity-queue}
        """.formatted(ttftMs);
  }

  private static void patch(TestCluster cluster, int replicas) throws Exception {
    var response = TestNodes.api(cluster.api(), "PATCH", "/api/applications/llm/deployments/sim",
        "{\"num_replicas\": " + replicas + "}", "application/json");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  private static void assertNothingHeld(TestCluster cluster) {
    Await.untilOk(Duration.ofSeconds(10), "no lease and no slot held", () -> {
      CapacitySnapshot snapshot = AskPattern.<CapacityQueue.Command, CapacitySnapshot>ask(
              cluster.control.capacityQueue(), CapacityQueue.GetSnapshot::new,
              Duration.ofSeconds(3), cluster.control.system().scheduler())
          .toCompletableFuture().get();
      int ongoing = 0;
      for (JsonNode replica : cluster.deployment("llm", "sim").path("replicas")) {
        ongoing += replica.path("ongoing").asInt();
      }
      return snapshot.leases() == 0 && snapshot.totalInFlight() == 0 && ongoing == 0;
    });
  }

  @Test
  void scaleOutAndInUnderLoadBreaksNoStreamAndSpreadsOverNodes() throws Exception {
    try (TestCluster cluster = TestCluster.start(app(0), 2, ConfigFactory.empty())) {
      cluster.awaitRunning("llm", "sim", 2, Duration.ofSeconds(30));
      StreamLoad load = new StreamLoad(cluster.ingress(), 32, 16);
      try {
        patch(cluster, 8);
        cluster.awaitRunning("llm", "sim", 8, Duration.ofSeconds(30));
        Map<String, Integer> perNode = new HashMap<>();
        for (JsonNode replica : cluster.deployment("llm", "sim").path("replicas")) {
          perNode.merge(replica.path("node").asText(), 1, Integer::sum);
        }
        assertThat(perNode).hasSize(2).allSatisfy((node, count) ->
            assertThat(count).as(node).isEqualTo(4));
        int before = load.completed.get();
        Await.until(Duration.ofSeconds(10), "streams served by the 8", () ->
            load.completed.get() > before + 64);

        patch(cluster, 2);
        cluster.awaitRunning("llm", "sim", 2, Duration.ofSeconds(40));
        int after = load.completed.get();
        Await.until(Duration.ofSeconds(10), "streams served by the 2", () ->
            load.completed.get() > after + 32);
      } finally {
        load.close();
      }
      assertThat(load.failures()).as("broken or failed streams").isEmpty();
      assertThat(cluster.deployment("llm", "sim").path("status").asText()).isEqualTo("HEALTHY");
      assertNothingHeld(cluster);
    }
  }

  @Test
  void aRollingUpdateReplacesEveryReplicaWithoutAFailedRequest() throws Exception {
    try (TestCluster cluster = TestCluster.start(app(0), 2, ConfigFactory.empty())) {
      cluster.awaitRunning("llm", "sim", 2, Duration.ofSeconds(30));
      JsonNode old = cluster.deployment("llm", "sim");
      StreamLoad load = new StreamLoad(cluster.ingress(), 32, 16);
      try {
        var response = TestNodes.api(cluster.api(), "PUT", "/api/applications", app(5),
            "application/yaml");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        try {
          Await.untilOk(Duration.ofSeconds(60), "every replica on the new spec", () -> {
            JsonNode now = cluster.deployment("llm", "sim");
            return now.path("status").asText().equals("HEALTHY")
                && now.path("replicas").size() == 2
                && !now.path("spec_version").asText().equals(old.path("spec_version").asText());
          });
        } catch (AssertionError e) {
          throw new AssertionError(e.getMessage() + "; now: " + cluster.deployment("llm", "sim"),
              e);
        }
      } finally {
        load.close();
      }
      JsonNode now = cluster.deployment("llm", "sim");
      for (JsonNode replica : now.path("replicas")) {
        assertThat(replica.path("spec_version").asText())
            .isEqualTo(now.path("spec_version").asText());
        for (JsonNode before : old.path("replicas")) {
          assertThat(replica.path("replica_id").asText())
              .isNotEqualTo(before.path("replica_id").asText());
        }
      }
      assertThat(load.completed.get()).isPositive();
      assertThat(load.failures()).as("failed requests").isEmpty();
      assertNothingHeld(cluster);
    }
  }

  @Test
  void aNodeWhereReplicasCannotStartIsAvoidedWhileAnotherHasRoom() throws Exception {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();  // the second node's whole replica port range
      String yaml = app(0).replace("num_replicas: 2", "num_replicas: 4");
      try (TestCluster cluster = TestCluster.start(yaml, List.of(ConfigFactory.empty(),
          ConfigFactory.parseString("sluice.replica.port-range = \"" + port + "-" + port
              + "\"")), ConfigFactory.empty())) {
        cluster.awaitRunning("llm", "sim", 4, Duration.ofSeconds(60));
        String good = cluster.replicaNodes.get(0).system().address().toString();
        assertThat(cluster.deployment("llm", "sim").path("replicas"))
            .allSatisfy(replica -> assertThat(replica.path("node").asText()).isEqualTo(good));
      }
    }
  }
}
