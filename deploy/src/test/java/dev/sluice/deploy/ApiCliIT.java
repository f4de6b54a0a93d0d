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

/** {@code sluice deploy | scale | status | delete} against a running node. */
class ApiCliIT {

  private record Run(int code, String out, String err) {}

  private static Run sluice(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = SluiceCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void deployScaleStatusAndDeleteThroughTheApi() throws Exception {
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
