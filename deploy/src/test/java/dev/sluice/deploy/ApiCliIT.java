package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.Sse;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code sluice deploy | scale | status | config | delete} against a running node. */
class ApiCliIT {

  private record Run(int code, String out, String err) {}

  private static Run sluice(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = SluiceCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(code, out.toString(), err.toString());
  }

  private static String replicaIds(String address) {
    Run status = sluice("status", "--address", address, "--json");
    StringBuilder ids = new StringBuilder();
    Sse.json(status.out()).at("/applications/0/deployments/0/replicas")
        .forEach(replica -> ids.append(replica.path("replica_id").asText()).append(' ')
            .append(replica.path("state").asText()).append('\n'));
    return ids.toString();
  }

  @Test
  void deployScaleStatusConfigAndDeleteThroughTheApi() throws Exception {
    try (SluiceNode node = TestNodes.local(TestNodes.app(1, 0, 1, 8), ConfigFactory.empty())) {
      String address = "http://127.0.0.1:" + node.apiPort().orElseThrow();
      Path file = TestNodes.appFile("""
          applications:
            - name: chat
              route_prefix: /chat
              llm_configs:
                - model_loading_config: {model_id: chat-model}
                  engine_config: {type: simulated, ttft_ms: 0, itl_ms: 1}
          """);

      Run deploy = sluice("deploy", file.toString(), "--address", address);
      assertThat(deploy.code()).as(deploy.err()).isZero();
      assertThat(deploy.out()).contains("APP", "DEPLOYMENT", "chat", "chat-model")
          .doesNotContain("llm ");

      Run scale = sluice("scale", "chat", "chat-model", "2", "--address", address, "--json");
      assertThat(scale.code()).as(scale.err()).isZero();
      assertThat(Sse.json(scale.out()).at("/applications/0/deployments/0/target_replicas")
          .asInt()).isEqualTo(2);

      Await.untilOk(Duration.ofSeconds(20), "two replicas in the table", () -> {
        Run status = sluice("status", "--address", address);
        return status.out().contains("HEALTHY") && status.out().contains("RUNNING 2")
            && status.out().split("\\bRUNNING\\s+0\\b", -1).length == 3;
      });
      Run status = sluice("status", "--address", address);
      assertThat(status.out()).contains("chat  chat-model  HEALTHY  2").contains("REPLICA",
          "NODE", "ENDPOINT", "STATE", "ONGOING", "http://127.0.0.1:", "chat#chat-model#");

      Run config = sluice("config", "--address", address);
      assertThat(config.code()).as(config.err()).isZero();
      assertThat(config.out()).startsWith("applications:\n  - name: chat\n")
          .contains("route_prefix: /chat\n", "model_id: chat-model\n", "ttft_ms: 0\n",
              "itl_ms: 1\n", "num_replicas: 2\n", "request_router_class: round-robin\n");
      Run json = sluice("config", "chat", "--address", address, "--json");
      assertThat(Sse.json(json.out()).at("/applications/0/llm_configs/0/deployment_config"
          + "/num_replicas").asInt()).isEqualTo(2);
      Run unknown = sluice("config", "nope", "--address", address);
      assertThat(unknown.code()).isEqualTo(1);
      assertThat(unknown.err()).contains("APP: 'nope' (expected: one of [chat])");
      String before = replicaIds(address);
      Run again = sluice("deploy", TestNodes.appFile(config.out()).toString(), "--address",
          address);
      assertThat(again.code()).as(again.err()).isZero();
      assertThat(replicaIds(address)).as("deploying what config printed changes nothing")
          .isEqualTo(before);
      assertThat(sluice("config", "--address", address).out()).isEqualTo(config.out());

      Run missing = sluice("scale", "chat", "nope", "3", "--address", address);
      assertThat(missing.code()).isEqualTo(1);
      assertThat(missing.err()).contains("deployment 'nope' does not exist");
      Run negative = sluice("scale", "chat", "chat-model", "-1", "--address", address);
      assertThat(negative.code()).isEqualTo(1);
      assertThat(negative.err()).contains("num_replicas: -1 (expected: >= 0)");

      Run delete = sluice("delete", "chat", "--address", address);
      assertThat(delete.code()).as(delete.err()).isZero();
      assertThat(delete.out()).contains("No applications.");
      JsonNode after = TestNodes.status(node);
      assertThat(after.path("applications")).isEmpty();

      Run nobody = sluice("status", "--address", "http://127.0.0.1:9");
      assertThat(nobody.code()).isEqualTo(1);
      assertThat(nobody.err()).contains("no controller API at http://127.0.0.1:9");
    }
  }
}
