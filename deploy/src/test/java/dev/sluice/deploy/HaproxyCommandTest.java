package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.deploy.haproxy.HaproxyConfig;
import org.junit.jupiter.api.Test;

class HaproxyCommandTest {

  @Test
  void rendersTheRunningReplicasWithAnExternalEnginesCompletionsGoingToTheEngine()
      throws Exception {
    var status = new ObjectMapper().readTree("""
        {"applications": [{"deployments": [{"replicas": [
          {"replica_id": "llm#sim#a", "endpoint": "http://10.0.0.6:30000", "state": "RUNNING"},
          {"replica_id": "llm#ext#b", "endpoint": "http://10.0.0.7:30001",
           "engine_endpoint": "http://10.0.0.7:31005", "state": "RUNNING"},
          {"replica_id": "llm#sim#c", "endpoint": "http://10.0.0.6:30002", "state": "STARTING"}
        ]}]}]}
        """);

    assertThat(HaproxyCommand.runningReplicas(status)).containsExactly(
        new HaproxyConfig.Replica("llm#sim#a", "10.0.0.6", 30000, 30000),
        new HaproxyConfig.Replica("llm#ext#b", "10.0.0.7", 31005, 30001));
  }
}
