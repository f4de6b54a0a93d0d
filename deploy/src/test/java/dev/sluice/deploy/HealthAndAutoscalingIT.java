package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Health checks replace a replica that reports itself unhealthy or stops answering, once three
 * checks in a row failed (within three periods + timeouts), and keep one that fails fewer;
 * autoscaling follows a load step up and down after its delays, never leaving [min, max].
 */
class HealthAndAutoscalingIT {

  private static final String CHECKED = """
      applications:
        - name: llm
          llm_configs:
            - model_loading_config: {model_id: sim}
              engine_config: {type: simulated, ttft_ms: 0, itl_ms: 1, default_max_tokens: 8}
              deployment_config:
                num_replicas: 2
                health_check_period_s: 0.5
                health_check_timeout_s: 1
      """;

  private static void fault(JsonNode replica, String mode) throws Exception {
    var response = TestNodes.api(Integer.parseInt(replica.path("endpoint").asText()
            .replaceAll(".*:", "")), "POST", "/-/sim/fault?mode=" + mode, null, null);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  private static void awaitReplaced(SluiceNode node, String victim, Duration within) {
    Await.untilOk(within, victim + " replaced by a RUNNING replica", () -> {
      JsonNode deployment = TestNodes.deployment(node, "llm", "sim");
      boolean gone = true;
      for (JsonNode replica : deployment.path("replicas")) {
        gone &= !replica.path("replica_id").asText().equals(victim);
      }
      return gone && deployment.path("current_replicas").asInt() == 2;
    });
  }

  @Test
  void anUnhealthyOrHungReplicaIsReplacedAfterThreeFailedChecksInARow() throws Exception {
    try (SluiceNode node = TestNodes.local(CHECKED, ConfigFactory.empty())) {
      JsonNode first = TestNodes.deployment(node, "llm", "sim").path("replicas").get(0);
      fault(first, "unhealthy");
      awaitReplaced(node, first.path("replica_id").asText(), Duration.ofSeconds(5));
      assertThat(node.ingressView().all().iterator().next().replicas())
          .noneMatch(r -> r.id().toString().equals(first.path("replica_id").asText()));

      // Three checks of 0.5 s period and 1 s timeout each: 4.5 s, then the replacement starts.
      JsonNode second = TestNodes.deployment(node, "llm", "sim").path("replicas").get(0);
      fault(second, "hang");
      awaitReplaced(node, second.path("replica_id").asText(), Duration.ofSeconds(8));
    }
  }

  @Test
  void aReplicaThatFailsFewerChecksThanTheThresholdKeepsServing() throws Exception {
    // Checks 2 s apart: the fault is cleared well before a second check can fail.
    try (SluiceNode node = TestNodes.local(CHECKED.replace("health_check_period_s: 0.5",
        "health_check_period_s: 2"), ConfigFactory.empty())) {
      JsonNode replica = TestNodes.deployment(node, "llm", "sim").path("replicas").get(0);
      String id = replica.path("replica_id").asText();
      fault(replica, "unhealthy");
      Await.untilOk(Duration.ofSeconds(6), id + " failed a check", () ->
          failedChecks(node, id) >= 1);
      fault(replica, "none");
      Await.untilOk(Duration.ofSeconds(6), id + " passed a check again", () ->
          failedChecks(node, id) == 0);
      assertThat(TestNodes.deployment(node, "llm", "sim").path("replicas"))
          .extracting(r -> r.path("replica_id").asText()).contains(id);
      assertThat(node.ingressView().all().iterator().next().replicas())
          .anyMatch(r -> r.id().toString().equals(id));
    }
  }

  /** The replica's failed checks in a row, or -1 once it has left the status tree. */
  private static int failedChecks(SluiceNode node, String id) throws Exception {
    for (JsonNode replica : TestNodes.deployment(node, "llm", "sim").path("replicas")) {
      if (replica.path("replica_id").asText().equals(id)) {
        return replica.path("failed_health_checks").asInt();
      }
    }
    return -1;
  }

  @Test
  void autoscalingFollowsALoadStepWithinItsBoundsAfterItsDelays() throws Exception {
    String app = """
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: sim}
                engine_config: {type: simulated, ttft_ms: 0, itl_ms: 20, default_max_tokens: 40}
                deployment_config:
                  max_ongoing_requests: 16
                  autoscaling_config:
                    min_replicas: 1
                    max_replicas: 3
                    target_ongoing_requests: 2
                    upscale_delay_s: 1
                    downscale_delay_s: 2
                    look_back_period_s: 1
                    metrics_interval_s: 0.2
        """;
    try (SluiceNode node = TestNodes.local(app, ConfigFactory.empty())) {
      List<Integer> targets = new ArrayList<>();
      StreamLoad load = new StreamLoad(node.ingressPort().orElseThrow(), 10, 40);
      long loadStart = System.nanoTime();
      try {
        Await.untilOk(Duration.ofSeconds(15), "scaled up to 3 under 10 streams", () -> {
          JsonNode deployment = TestNodes.deployment(node, "llm", "sim");
          targets.add(deployment.path("target_replicas").asInt());
          return deployment.path("current_replicas").asInt() == 3;
        });
      } finally {
        load.close();
      }
      Duration up = Duration.ofNanos(System.nanoTime() - loadStart);
      JsonNode scaledUp = TestNodes.deployment(node, "llm", "sim");
      assertThat(scaledUp.path("autoscaling").path("last_decision").path("to").asInt())
          .isEqualTo(3);
      assertThat(scaledUp.path("autoscaling").path("last_decision").path("reason").asText())
          .contains("upscale_delay_s 1.0");
      assertThat(up).as("not before the upscale delay").isGreaterThan(Duration.ofSeconds(1));

      long idleStart = System.nanoTime();
      Await.untilOk(Duration.ofSeconds(20), "back to 1 without load", () -> {
        JsonNode deployment = TestNodes.deployment(node, "llm", "sim");
        targets.add(deployment.path("target_replicas").asInt());
        return deployment.path("current_replicas").asInt() == 1
            && deployment.path("replicas").size() == 1;
      });
      assertThat(Duration.ofNanos(System.nanoTime() - idleStart))
          .as("not before the downscale delay").isGreaterThan(Duration.ofSeconds(2));
      assertThat(targets).allSatisfy(target -> assertThat(target).isBetween(1, 3));
      assertThat(load.failures()).isEmpty();
    }
  }
}
