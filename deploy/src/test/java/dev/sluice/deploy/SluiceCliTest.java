package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import dev.sluice.ingress.IngressSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SluiceCliTest {

  private static String stderrOf(Runnable action) {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  @Test
  void unknownRoleIsAUsageError() {
    assertThatThrownBy(() -> Role.parse("control,gpu"))
        .hasMessage("--roles: 'gpu' (expected: control, ingress, replica)");
  }

  @Test
  void unknownRouterNodeOrDataPathIsNamed() {
    assertThatThrownBy(() -> CompareTargets.RouterNode.parse("gpu"))
        .hasMessage("--router-node: gpu (expected: ingress or replica)");
    assertThatThrownBy(() -> IngressSettings.fromConfig(ConfigFactory.parseString(
            "sluice.ingress.data-path = netty").withFallback(ConfigFactory.load())))
        .hasMessageStartingWith("sluice.ingress.data-path: removed; the splice is the only");
    assertThatThrownBy(() -> IngressSettings.fromConfig(ConfigFactory.parseString(
            "sluice.ingress.splice.threads = -1").withFallback(ConfigFactory.load())))
        .hasMessageContaining("sluice.ingress.splice.threads: -1");
  }

  @Test
  void badSeedNodeIsNamed() {
    assertThatThrownBy(() -> SluiceNode.seedAddress("nohostport"))
        .hasMessageContaining("--seed-nodes: 'nohostport' (expected: host:port");
  }

  @Test
  void badDiscoverySettingsAreNamedBeforeAnythingStarts() {
    int[] code = new int[1];
    String unknown = stderrOf(() -> code[0] = SluiceCli.execute("node", "--roles", "replica",
        "--port", "0", "--discovery", "dns"));
    assertThat(code[0]).isEqualTo(1);
    assertThat(unknown).contains("sluice.cluster.discovery (--discovery): 'dns' (expected: "
        + "seed-nodes, kubernetes-api or config)");

    String noPoints = stderrOf(() -> code[0] = SluiceCli.execute("node", "--roles", "replica",
        "--port", "0", "--discovery", "config"));
    assertThat(code[0]).isEqualTo(1);
    assertThat(noPoints).contains("--discovery config needs --contact-points");

    String both = stderrOf(() -> code[0] = SluiceCli.execute("node", "--roles", "replica",
        "--port", "0", "--discovery", "config", "--contact-points", "127.0.0.1:7626",
        "--seed-nodes", "127.0.0.1:25520"));
    assertThat(code[0]).isEqualTo(1);
    assertThat(both).contains("--seed-nodes and --discovery config exclude each other");
  }

  @Test
  void missingConfigFileFailsWithItsName() {
    int[] code = new int[1];
    String err = stderrOf(() -> code[0] = SluiceCli.execute("local", "--config", "/no/such.yaml",
        "--port", "0", "--router-port", "0", "--remoting-port", "0"));

    assertThat(code[0]).isEqualTo(1);
    assertThat(err).contains("--config: /no/such.yaml (expected: a readable YAML or JSON file)");
  }

  @Test
  void deployOfAMissingFileFailsWithItsName() {
    int[] code = new int[1];
    String err = stderrOf(() -> code[0] = SluiceCli.execute("deploy", "/no/such.yaml"));

    assertThat(code[0]).isEqualTo(1);
    assertThat(err).contains("FILE: /no/such.yaml (expected: a readable YAML or JSON file; "
        + "NoSuchFileException)");
  }

  @Test
  void invalidApplicationConfigNamesTheField() {
    var file = TestNodes.appFile(TestNodes.app(2, 0, 0, 4).replace("max_ongoing_requests: 4",
        "max_ongoing_requests: 0"));

    assertThatThrownBy(() -> AppConfigs.load(Optional.of(file), 1000))
        .hasMessage("applications[0].llm_configs[0].deployment_config.max_ongoing_requests: 0 "
            + "(expected: >= 1)");
  }

  @Test
  void aReplicaCountAboveTheLimitFailsStartupBeforeAnyPortIsTaken() {
    var file = TestNodes.appFile(TestNodes.app(5000, 0, 0, 4));
    int[] code = new int[1];
    String err = stderrOf(() -> code[0] = SluiceCli.execute("local", "--config",
        file.toString(), "--port", "0", "--router-port", "0", "--remoting-port", "0"));

    assertThat(code[0]).isEqualTo(1);
    assertThat(err).contains("applications[0].llm_configs[0].deployment_config.num_replicas: "
        + "5000 (expected: <= 1000, the most replicas of one deployment this cluster allows: "
        + "sluice.controller.max-replicas-per-deployment)");
  }

  @Test
  void unknownRequestRouterFailsStartupListingKnownKeys() {
    var file = TestNodes.appFile(TestNodes.app(1, 0, 0, 4).replace("max_ongoing_requests: 4}",
        "max_ongoing_requests: 4, request_router_config: {request_router_class: fastest}}"));

    assertThatThrownBy(() -> AppConfigs.load(Optional.of(file), 1000))
        .hasMessageContaining("request_router_config.request_router_class: 'fastest' "
            + "(expected: one of capacity-queue, consistent-hash, power-of-two, "
            + "prefix-cache-affinity, round-robin");
  }

  @Test
  void badKwargsFailStartupNamingTheKwarg() {
    var file = TestNodes.appFile(TestNodes.app(1, 0, 0, 4).replace("max_ongoing_requests: 4}",
        "max_ongoing_requests: 4, request_router_config: {request_router_class: consistent-hash,"
            + " request_router_kwargs: {num_virtual_nodes: 0}}}"));

    assertThatThrownBy(() -> AppConfigs.load(Optional.of(file), 1000))
        .hasMessage("applications[0].llm_configs[0].deployment_config.request_router_config."
            + "request_router_kwargs.num_virtual_nodes: 0 (expected: > 0)");
  }

  @Test
  void seedNodesNamingOnlyTheNodeItselfAreTold() {
    var self = SluiceNode.seedAddress("10.0.0.5:25520");
    assertThat(ClusterFormation.onlyItself(List.of(SluiceNode.seedAddress("10.0.0.5:25520")),
        self)).isTrue();
    assertThat(ClusterFormation.onlyItself(List.of(SluiceNode.seedAddress("10.0.0.5:25520"),
        SluiceNode.seedAddress("10.0.0.6:25520")), self)).isFalse();
    assertThat(ClusterFormation.onlyItself(List.of(SluiceNode.seedAddress("10.0.0.5:25521")),
        self)).as("another node on the same host").isFalse();
  }

  @Test
  void noCommandIsAUsageError() {
    int[] code = new int[1];
    String err = stderrOf(() -> code[0] = SluiceCli.execute());

    assertThat(code[0]).isEqualTo(2);
    assertThat(err).contains("a command is required");
  }

  @Test
  void defaultAppIsValid() {
    var apps = AppConfigs.load(Optional.empty(), 1000);

    assertThat(apps.applications().get(0).llmConfigs().get(0).modelId()).isEqualTo("sluice-sim");
    assertThat(apps.applications().get(0).llmConfigs().get(0).deployment().numReplicas())
        .isEqualTo(2);
  }
}
