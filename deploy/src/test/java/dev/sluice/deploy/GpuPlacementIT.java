package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Replicas whose servers need GPUs ({@code num_gpus}) on a cluster where one replica node offers
 * two ({@code sluice.replica.gpus}) and the other none: every server gets a GPU of its own, and
 * the replicas end up where the GPUs are (a start refused for want of one sends the replacement
 * to another node first).
 */
class GpuPlacementIT {

  private static String app() {
    return app(2);
  }

  /** {@code replicas} replicas of {@code sluice engine-sim} as a server with one GPU each. */
  static String app(int replicas) {
    return OpenAiProcessIT.app(replicas, 20).replaceFirst("( *)startup_timeout_s: 60",
        "$1startup_timeout_s: 60\n$1num_gpus: 1");
  }

  /** CUDA_VISIBLE_DEVICES of each engine server this JVM runs (Linux: their environ). */
  private static List<String> visibleDevices() throws Exception {
    List<String> devices = new ArrayList<>();
    for (ProcessHandle engine : OpenAiProcessIT.engines(ProcessHandle.current())) {
      for (String variable : Files.readString(
          Path.of("/proc", String.valueOf(engine.pid()), "environ")).split("\0")) {
        if (variable.startsWith("CUDA_VISIBLE_DEVICES=")) {
          devices.add(variable.substring("CUDA_VISIBLE_DEVICES=".length()));
        }
      }
    }
    return devices;
  }

  @Test
  void eachServerGetsAGpuOfItsOwnOnTheNodeThatHasThem() throws Exception {
    assertThat(app()).contains("num_gpus: 1");
    try (TestCluster cluster = TestCluster.start(app(), List.of(
        ConfigFactory.parseString("sluice.replica.gpus = \"0,1\""),
        ConfigFactory.parseString("sluice.replica.gpus = \"\"")), ConfigFactory.empty())) {
      cluster.awaitRunning("llm", "ext", 2, Duration.ofSeconds(90));

      String withGpus = cluster.replicaNodes.get(0).system().address().toString();
      JsonNode replicas = cluster.deployment("llm", "ext").path("replicas");
      assertThat(replicas).hasSize(2)
          .allSatisfy(replica -> assertThat(replica.path("node").asText()).isEqualTo(withGpus));
      assertThat(visibleDevices()).containsExactlyInAnyOrder("0", "1");
      List<String> reported = new ArrayList<>();
      replicas.forEach(replica -> replica.path("gpus").forEach(d -> reported.add(d.asText())));
      assertThat(reported).as("the status names each replica's GPUs")
          .containsExactlyInAnyOrder("0", "1");
      assertThat(StatusTable.render(TestNodes.status(cluster.control)))
          .contains("GPUS").containsPattern("RUNNING +0 +[01]\n");
    }
  }

  @Test
  void moreServersThanGpusRunAsManyAsThereAreAndTheStatusSaysWhy() throws Exception {
    try (TestCluster cluster = TestCluster.start(app(3), List.of(
        ConfigFactory.parseString("sluice.replica.gpus = \"0,1\"")), ConfigFactory.empty())) {
      Await.untilOk(Duration.ofSeconds(90), "2 of 3 running, the status naming the GPUs", () -> {
        JsonNode status = cluster.deployment("llm", "ext");
        return status.path("current_replicas").asInt() == 2
            && status.path("message").asText().contains("engine failed to start: needs 1 GPU "
                + "(num_gpus), and 0 of this node's 2 (sluice.replica.gpus: 0,1) are free");
      });
      assertThat(visibleDevices()).containsExactlyInAnyOrder("0", "1");
    }
  }
}
