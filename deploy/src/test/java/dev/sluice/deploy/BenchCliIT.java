package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code sluice bench} and {@code sluice bench compare} against a real local cluster. */
class BenchCliIT {

  private static final String SESSIONS_APP = """
      applications:
        - name: llm
          llm_configs:
            - model_loading_config: {model_id: sim}
              engine_config: {type: simulated, ttft_ms: 0, itl_ms: 0, default_max_tokens: 8}
              deployment_config:
                num_replicas: 3
                request_router_config: {request_router_class: consistent-hash}
      """;

  @Test
  void compareWritesRatiosTheDocumentedWayAndAChart() throws Exception {
    try (SluiceNode node = TestNodes.local(TestNodes.app(1, 0, 0, 256),
        ConfigFactory.parseString("sluice.ingress.relayed-port = 0"))) {
      ReplicaInfo replica = node.ingressView().all().iterator().next().replicas().get(0);
      Path json = Files.createTempFile("compare", ".json");
      Path chart = Files.createTempFile("compare", ".png");
      String targets = "http://127.0.0.1:" + replica.port() + ",http://127.0.0.1:"
          + node.ingressPort().orElseThrow() + ",http://127.0.0.1:"
          + node.relayedIngressPort().orElseThrow();

      int code = SluiceCli.execute("bench", "compare", "--targets", targets, "--concurrency",
          "1,4", "--requests", "40", "--max-tokens", "8", "--warmup", "0", "--rounds", "2",
          "--json", json.toString(), "--chart", chart.toString());

      assertThat(code).isZero();
      JsonNode result = new ObjectMapper().readTree(json.toFile());
      List<String> ratioKeys = new ArrayList<>();
      result.get("ratios").fieldNames().forEachRemaining(ratioKeys::add);
      assertThat(ratioKeys).containsExactlyInAnyOrder("direct_over_limit_tokens_per_s",
          "relayed_over_limit_tokens_per_s", "direct_over_relayed_tokens_per_s",
          "direct_minus_limit_ttft_p50_ms", "direct_minus_limit_ttft_p99_ms");
      assertThat(result.get("ratios").get("direct_over_limit_tokens_per_s").asDouble())
          .isPositive();
      for (String level : List.of("1", "4")) {
        for (String target : List.of("replica", "direct", "relayed")) {
          assertThat(result.at("/results/" + level + "/" + target + "/outcomes/200").asLong())
              .isEqualTo(40);
        }
      }
      byte[] png = Files.readAllBytes(chart);
      assertThat(png.length).isGreaterThan(1000);
      assertThat(new String(png, 1, 3, java.nio.charset.StandardCharsets.US_ASCII))
          .isEqualTo("PNG");
    }
  }

  @Test
  void compareStartsItsTargetsAndChargesEachServingProcessItsCpu() throws Exception {
    Path json = Files.createTempFile("compare-cpu", ".json");
    Path chart = Files.createTempFile("compare-cpu", ".png");

    int code = SluiceCli.execute("bench", "compare", "--plain-haproxy", "--no-relayed",
        "--concurrency", "8", "--requests", "400", "--max-tokens", "64", "--warmup", "16",
        "--rounds", "2", "--json", json.toString(), "--chart", chart.toString());

    assertThat(code).isZero();
    JsonNode result = new ObjectMapper().readTree(json.toFile());
    JsonNode level = result.at("/results/8");
    List<String> targets = new ArrayList<>();
    level.fieldNames().forEachRemaining(targets::add);
    assertThat(targets).containsExactly("replica", "direct", "haproxy_plain");
    for (String target : targets) {
      assertThat(level.at("/" + target + "/outcomes/200").asLong()).isEqualTo(400);
      List<String> groups = new ArrayList<>();
      level.at("/" + target + "/server_cpu_us_per_token").fieldNames()
          .forEachRemaining(groups::add);
      assertThat(groups).containsExactly("replica node", "ingress node", "plain HAProxy", "all");
      assertThat(level.at("/" + target + "/server_cpu_us_per_token/replica node").asDouble())
          .as("the engine serves every target").isPositive();
    }
    // Each data plane's own process works in its own rounds, and far less in the others'.
    JsonNode direct = level.at("/direct/server_cpu_us_per_token");
    JsonNode plain = level.at("/haproxy_plain/server_cpu_us_per_token");
    assertThat(direct.get("ingress node").asDouble())
        .isGreaterThan(direct.get("plain HAProxy").asDouble());
    assertThat(plain.get("plain HAProxy").asDouble()).isPositive()
        .isGreaterThan(direct.get("plain HAProxy").asDouble());
    assertThat(result.at("/ratios/direct_over_plain_haproxy_cpu_per_token").asDouble())
        .isEqualTo(direct.get("ingress node").asDouble() / plain.get("plain HAProxy").asDouble(),
            org.assertj.core.data.Offset.offset(1e-9));
    assertThat(result.at("/ratios").has("relayed_over_limit_tokens_per_s")).isFalse();
  }

  @Test
  void multiTurnSessionsReportFullAffinityWithConsistentHash() throws Exception {
    try (SluiceNode node = TestNodes.local(SESSIONS_APP, ConfigFactory.empty())) {
      Path json = Files.createTempFile("bench", ".json");

      int code = SluiceCli.execute("bench", "--url", "http://127.0.0.1:"
          + node.ingressPort().orElseThrow(), "--workload", "multi-turn", "--sessions", "12",
          "--turns", "4", "--concurrency", "3", "--warmup", "0", "--json", json.toString());

      assertThat(code).isZero();
      JsonNode run = new ObjectMapper().readTree(json.toFile()).get("results").get(0);
      assertThat(run.get("requests").asLong()).isEqualTo(48);
      assertThat(run.get("session_affinity").asDouble()).isEqualTo(1.0);
      assertThat(run.get("replicas").size()).isGreaterThan(1);
    }
  }
}
