package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class StatusTableTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A status with one replica row ({@code gpus} its field, if any). */
  private static String status(String gpus) {
    return """
        {"applications": [{"name": "llm", "deployed_app_config": {"request_router_kwargs":
          {"gpus": [7]}}, "deployments": [{"name": "ext", "status": "HEALTHY",
          "target_replicas": 1, "replicas_by_state": {"RUNNING": 1}, "message": "",
          "replicas": [{"replica_id": "llm#ext#a", "node": "pekko://sluice@h:1",
          "endpoint": "http://h:30000", "state": "RUNNING", "serving": true, "ongoing": 0%s}]
        }]}]}""".formatted(gpus);
  }

  @Test
  void aGpusColumnOnlyWhenAReplicaHoldsGpus() throws Exception {
    assertThat(StatusTable.render(JSON.readTree(status(", \"gpus\": [\"0\", \"1\"]"))))
        .contains("ONGOING  GPUS\n").containsPattern("RUNNING +0 +0,1\n");
    assertThat(StatusTable.render(JSON.readTree(status(""))))
        .as("a field of that name in the deployed config is not a replica's")
        .doesNotContain("GPUS").containsPattern("RUNNING +0\n");
  }
}
