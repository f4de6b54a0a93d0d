package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class StatusTableTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A status with one replica row ({@code gpus} its field, if any). */
  private static String status(String gpus) {
    return status(gpus, "{\"offered\": 0, \"allocated\": 0, \"nodes\": []}");
  }

  /** The same with the nodes' GPUs as {@code offered}. */
  private static String status(String gpus, String offered) {
    return """
        {"gpus": %s,
         "applications": [{"name": "llm", "deployed_app_config": {"request_router_kwargs":
          {"gpus": [7]}}, "deployments": [{"name": "ext", "status": "HEALTHY",
          "target_replicas": 1, "replicas_by_state": {"RUNNING": 1}, "message": "",
          "replicas": [{"replica_id": "llm#ext#a", "node": "pekko://sluice@h:1",
          "endpoint": "http://h:30000", "state": "RUNNING", "serving": true, "ongoing": 0%s}]
        }]}]}""".formatted(offered, gpus);
  }

  @Test
  void aGpusColumnOnlyWhenAReplicaHoldsGpus() throws Exception {
    assertThat(StatusTable.render(JSON.readTree(status(", \"gpus\": [\"0\", \"1\"]"))))
        .contains("ONGOING  GPUS\n").containsPattern("RUNNING +0 +0,1\n");
    assertThat(StatusTable.render(JSON.readTree(status(""))))
        .as("a field of that name in the deployed config is not a replica's")
        .doesNotContain("GPUS").containsPattern("RUNNING +0\n");
  }

  @Test
  void theNodesGpusAllocatedOfOfferedWhenAnyNodeOffersSome() throws Exception {
    String offered = """
        {"offered": 6, "allocated": 2, "nodes": [
          {"node": "pekko://sluice@a:2552", "offered": 2, "allocated": 2},
          {"node": "pekko://sluice@b:2552", "offered": 4, "allocated": 0}]}""";

    assertThat(StatusTable.render(JSON.readTree(status(", \"gpus\": [\"0\", \"1\"]", offered))))
        .endsWith("\nGPUs allocated: 2 of 6 (pekko://sluice@a:2552 2 of 2, "
            + "pekko://sluice@b:2552 0 of 4)\n");
    assertThat(StatusTable.render(JSON.readTree(status("")))).doesNotContain("GPUs allocated");
  }
}
