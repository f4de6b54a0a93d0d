package dev.sluice.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import dev.sluice.core.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A cluster of separate nodes in this JVM (each its own actor system, remoting port and HTTP
 * servers on loopback): a {@code control,ingress} node serving {@code yaml}, and replica nodes
 * joining it.
 */
final class TestCluster implements AutoCloseable {

  final SluiceNode control;
  final List<SluiceNode> replicaNodes = new ArrayList<>();

  private TestCluster(SluiceNode control) {
    this.control = control;
  }

  static TestCluster start(String yaml, int replicaNodes, Config extra) throws Exception {
    return start(yaml, java.util.Collections.nCopies(replicaNodes,
        com.typesafe.config.ConfigFactory.empty()), extra);
  }

  /** One replica node per entry of {@code replicaNodeConfigs}, each with that config on top. */
  static TestCluster start(String yaml, List<Config> replicaNodeConfigs, Config extra)
      throws Exception {
    int replicaNodes = replicaNodeConfigs.size();
    Config overrides = extra.withFallback(TestNodes.overrides());
    NodeOptions controlOptions = new NodeOptions(Set.of(Role.CONTROL, Role.INGRESS),
        Optional.empty(), Optional.empty(), List.of(), Optional.of(TestNodes.appFile(yaml)),
        overrides);
    TestCluster cluster = new TestCluster(SluiceNode.start(controlOptions));
    try {
      String seed = "127.0.0.1:" + cluster.control.system().address().getPort().get();
      for (Config own : replicaNodeConfigs) {
        cluster.replicaNodes.add(SluiceNode.start(new NodeOptions(Set.of(Role.REPLICA),
            Optional.empty(), Optional.empty(), List.of(seed), Optional.empty(),
            own.withFallback(overrides))));
      }
      Await.untilOk(Duration.ofSeconds(30), "the controller sees every replica node", () ->
          TestNodes.status(cluster.control).path("replica_nodes").asInt() == replicaNodes);
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  int ingress() {
    return control.ingressPort().orElseThrow();
  }

  int api() {
    return control.apiPort().orElseThrow();
  }

  JsonNode deployment(String app, String name) throws Exception {
    return TestNodes.deployment(control, app, name);
  }

  /** Waits until the deployment has exactly {@code count} replicas, all RUNNING and published. */
  void awaitRunning(String app, String name, int count, Duration deadline) {
    try {
      awaitRunningOnly(app, name, count, deadline);
    } catch (AssertionError e) {
      String now;
      try {
        now = deployment(app, name).toString();
      } catch (Exception unreadable) {
        now = unreadable.toString();
      }
      throw new AssertionError(e.getMessage() + "; now: " + now, e);
    }
  }

  private void awaitRunningOnly(String app, String name, int count, Duration deadline) {
    Await.untilOk(deadline, app + "/" + name + ": " + count + " RUNNING and nothing else", () -> {
      JsonNode status = deployment(app, name);
      return status.path("current_replicas").asInt() == count
          && status.path("replicas").size() == count
          && control.ingressView().all().stream()
              .filter(set -> set.deployment().name().equals(name))
              .anyMatch(set -> set.replicas().size() == count);
    });
  }

  @Override
  public void close() {
    for (SluiceNode node : replicaNodes) {
      node.close();
    }
    control.close();
  }
}
