package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.core.testing.Await;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Replicas whose servers need GPUs ({@code num_gpus}) on a cluster where one replica node offers
 * two ({@code sluice.replica.gpus}) and the other none: the controller places them where the GPUs
 * are (no start refused, none counted as failed), every server gets a GPU of its own, one too
 * many waits with the status saying why, and a rolling update hands the GPUs from the old
 * version's servers to the new one's.
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

  /** This JVM's metrics, which every node in it shares. */
  private static Exposition metrics() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ExpositionFormats.init().getPrometheusTextFormatWriter()
        .write(out, SluiceMetrics.global().registry().scrape());
    return Exposition.parse(out.toString(StandardCharsets.UTF_8));
  }

  /**
   * The controllers' replica starts and replacements of the deployment so far: this JVM's
   * registry, which every node in it shares (take one before the cluster starts).
   */
  private record Counts(double starts, double replacements) {

    static Counts now() throws Exception {
      Exposition metrics = metrics();
      return new Counts(
          metrics.sum("sluice_controller_replica_starts_total", "deployment", "llm#ext"),
          metrics.sum("sluice_controller_replica_replacements_total", "deployment", "llm#ext"));
    }

    Counts since(Counts before) {
      return new Counts(starts - before.starts, replacements - before.replacements);
    }
  }

  @Test
  void eachServerGetsAGpuOfItsOwnOnTheNodeThatHasThem() throws Exception {
    assertThat(app()).contains("num_gpus: 1");
    Counts before = Counts.now();
    try (TestCluster cluster = TestCluster.start(app(), List.of(
        ConfigFactory.parseString("sluice.replica.gpus = \"0,1\""),
        ConfigFactory.parseString("sluice.replica.gpus = \"\"")), ConfigFactory.empty())) {
      cluster.awaitRunning("llm", "ext", 2, Duration.ofSeconds(90));
      assertThat(Counts.now().since(before)).as("placed where the GPUs are: none refused")
          .isEqualTo(new Counts(2, 0));

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
    Counts before = Counts.now();
    try (TestCluster cluster = TestCluster.start(app(3), List.of(
        ConfigFactory.parseString("sluice.replica.gpus = \"0,1\""),
        ConfigFactory.parseString("sluice.replica.gpus = \"\"")), ConfigFactory.empty())) {
      String withGpus = cluster.replicaNodes.get(0).system().address().toString();
      String without = cluster.replicaNodes.get(1).system().address().toString();
      Await.untilOk(Duration.ofSeconds(90), "2 of 3 running, the status naming the GPUs", () -> {
        JsonNode status = cluster.deployment("llm", "ext");
        return status.path("current_replicas").asInt() == 2
            && status.path("status").asText().equals("UPSCALING")
            && status.path("message").asText().equals("2 of 3 replicas running; waiting for "
                + "GPUs: each replica needs 1 (num_gpus); 0 of 2 free on " + withGpus
                + ", none offered on " + without + " (sluice.replica.gpus)");
      });
      assertThat(visibleDevices()).containsExactlyInAnyOrder("0", "1");
      assertThat(TestNodes.status(cluster.control).path("gpus").toString()).as("per node")
          .isEqualTo("{\"offered\":2,\"allocated\":2,\"nodes\":[{\"node\":\"" + withGpus
              + "\",\"offered\":2,\"allocated\":2}]}");
      assertThat(StatusTable.render(TestNodes.status(cluster.control)))
          .endsWith("GPUs allocated: 2 of 2 (" + withGpus + " 2 of 2)\n");
      Exposition metrics = metrics();
      assertThat(metrics.sum("sluice_controller_gpus", "node", withGpus, "state", "allocated"))
          .isEqualTo(2);
      assertThat(metrics.sum("sluice_controller_gpus", "node", withGpus, "state", "offered"))
          .isEqualTo(2);
      assertThat(metrics.samples()).as("a node that offers none has no series").noneMatch(
          sample -> sample.name().equals("sluice_controller_gpus")
              && without.equals(sample.labels().get("node")));
      assertThat(Counts.now().since(before)).as("the third is started nowhere: it waits")
          .isEqualTo(new Counts(2, 0));
    }
  }

  @Test
  void aRollingUpdateHandsTheOldServersGpusToTheNewOnes() throws Exception {
    Counts before = Counts.now();
    try (TestCluster cluster = TestCluster.start(app(), List.of(
        ConfigFactory.parseString("sluice.replica.gpus = \"0,1\"")), ConfigFactory.empty())) {
      cluster.awaitRunning("llm", "ext", 2, Duration.ofSeconds(90));
      List<String> old = replicaIds(cluster);
      String updated = app().replaceFirst("( *)num_gpus: 1",
          "$1num_gpus: 1\n$1env: {SLUICE_GPU_TEST_VERSION: '2'}");
      assertThat(updated).contains("SLUICE_GPU_TEST_VERSION");

      assertThat(TestNodes.api(cluster.api(), "PUT", "/api/applications", updated,
          "application/yaml").statusCode()).isEqualTo(200);

      Await.untilOk(Duration.ofSeconds(120), "two new replicas running, the old ones gone",
          () -> {
            JsonNode status = cluster.deployment("llm", "ext");
            List<String> now = replicaIds(cluster);
            return status.path("status").asText().equals("HEALTHY") && now.size() == 2
                && now.stream().noneMatch(old::contains);
          });
      Await.untilOk(Duration.ofSeconds(30), "only the new servers left", () ->
          OpenAiProcessIT.engines(ProcessHandle.current()).size() == 2);
      assertThat(visibleDevices()).containsExactlyInAnyOrder("0", "1");
      assertThat(Counts.now().since(before)).as("two starts per version, none refused")
          .isEqualTo(new Counts(4, 0));
    }
  }

  @Test
  void anUpdateToServersOfMoreGpusDrainsAsManyOldOnesAsOneNewOneNeeds() throws Exception {
    try (TestCluster cluster = TestCluster.start(app(), List.of(
        ConfigFactory.parseString("sluice.replica.gpus = \"0,1\"")), ConfigFactory.empty())) {
      cluster.awaitRunning("llm", "ext", 2, Duration.ofSeconds(90));
      String wider = app().replace("num_gpus: 1", "num_gpus: 2");
      assertThat(wider).contains("num_gpus: 2").contains("num_replicas: 2");

      assertThat(TestNodes.api(cluster.api(), "PUT", "/api/applications", wider,
          "application/yaml").statusCode()).isEqualTo(200);

      // the new server needs the GPUs of both old ones: both go, then it starts; the second new
      // one has no room on this node and waits
      Await.untilOk(Duration.ofSeconds(120), "one server with both GPUs, the other waiting",
          () -> {
            JsonNode status = cluster.deployment("llm", "ext");
            return status.path("current_replicas").asInt() == 1
                && status.path("replicas").size() == 1
                && status.path("message").asText().contains("waiting for GPUs: each replica "
                    + "needs 2 (num_gpus); 0 of 2 free")
                && visibleDevices().equals(List.of("0,1"));
          });
    }
  }

  private static List<String> replicaIds(TestCluster cluster) throws Exception {
    List<String> ids = new ArrayList<>();
    cluster.deployment("llm", "ext").path("replicas")
        .forEach(replica -> ids.add(replica.path("replica_id").asText()));
    return ids;
  }
}
