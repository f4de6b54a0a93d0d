package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.config.ApplicationConfig;
import dev.sluice.core.config.ApplicationsConfigParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class StatusReportTest {

  @Test
  void runningReplicasOnAnUnreachableNodeDoNotCountAsRunning() throws Exception {
    ApplicationConfig app = ApplicationsConfigParser.parse("""
        applications: [{name: llm, llm_configs: [{model_loading_config: {model_id: sim},
          deployment_config: {num_replicas: 4}}]}]""").applications().get(0);
    DeploymentState state = new DeploymentState(app.llmConfigs().get(0).deploymentId("llm"), app,
        app.llmConfigs().get(0));
    state.versionServed = true;
    List<ReplicaRecord> records = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      records.add(new ReplicaRecord(new ReplicaInfo(ReplicaId.random(state.id), "node-" + i % 2,
          "h", 30000 + i, 8, ReplicaState.RUNNING, List.of("sim")), null, state.version, i));
    }
    Predicate<ReplicaRecord> serving = r -> r.info.nodeAddress().equals("node-0");

    StatusReport.updateStatus(state, records, r -> true, 0, "");
    assertThat(state.status).isEqualTo(DeploymentState.Status.HEALTHY);
    StatusReport.updateStatus(state, records, serving, 0, "");
    assertThat(state.status).isEqualTo(DeploymentState.Status.UPSCALING);
    assertThat(state.message).isEqualTo("2 of 4 replicas running, 2 on unreachable nodes");

    JsonNode deployment = new ObjectMapper().readTree(StatusReport.json(List.of(state), records,
        serving, Map.of(), 2, new GpuLedger().report(List.of(), records, Object::toString)))
        .at("/applications/0/deployments/0");
    assertThat(deployment.path("current_replicas").asInt()).isEqualTo(2);
    assertThat(deployment.path("replicas")).extracting(r -> r.path("serving").asBoolean())
        .containsExactly(true, false, true, false);
  }
}
