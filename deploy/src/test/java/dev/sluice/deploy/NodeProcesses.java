package dev.sluice.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.testing.Sse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/** Starting {@code sluice node} processes on loopback and reading a cluster's state from them. */
final class NodeProcesses {

  private NodeProcesses() {}

  /** JVM options for a test node: a small heap and quick start on a 2-core machine. */
  static final List<String> JVM = List.of("-Xmx384m", "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1");

  /** A {@code control,ingress} node. */
  static NodeProcess control(int remoting, String seeds, int ingress, int api,
      Optional<Path> config) throws IOException {
    return control(remoting, seeds, ingress, api, -1, config);
  }

  /** A {@code control,ingress} node with {@code POST /internal/route} on {@code router}. */
  static NodeProcess control(int remoting, String seeds, int ingress, int api, int router,
      Optional<Path> config) throws IOException {
    List<String> args = new ArrayList<>(List.of("node", "--roles", "control,ingress", "--host",
        "127.0.0.1", "--port", String.valueOf(remoting), "--seed-nodes", seeds,
        "--ingress-port", String.valueOf(ingress), "--api-port", String.valueOf(api),
        "--router-port", String.valueOf(router)));
    config.ifPresent(file -> args.addAll(List.of("--config", file.toString())));
    return NodeProcess.start(JVM, SluiceCli.class, args, Map.of());
  }

  /** A {@code replica} node whose replicas listen on {@code ports} ({@code first-last}). */
  static NodeProcess replica(int remoting, String seeds, String ports) throws IOException {
    return NodeProcess.start(JVM, SluiceCli.class, List.of("node", "--roles", "replica",
            "--host", "127.0.0.1", "--port", String.valueOf(remoting), "--seed-nodes", seeds),
        Map.of("SLUICE_REPLICA_PORT_RANGE", ports));
  }

  /** GET {@code path} of the controller API on {@code api} as JSON; empty unless 200. */
  static Optional<JsonNode> get(int api, String path) {
    try {
      HttpResponse<String> response = TestNodes.api(api, "GET", path, null, null);
      return response.statusCode() == 200 ? Optional.of(Sse.json(response.body()))
          : Optional.empty();
    } catch (Exception notYet) {
      return Optional.empty();
    }
  }

  /** The first deployment of the first application, as the controller API on {@code api} sees it. */
  static Optional<JsonNode> deployment(int api) {
    return get(api, "/api/applications")
        .map(status -> status.path("applications").path(0).path("deployments").path(0))
        .filter(deployment -> !deployment.isMissingNode());
  }

  /** The ids of the deployment's replicas (any state). */
  static TreeSet<String> replicaIds(JsonNode deployment) {
    TreeSet<String> ids = new TreeSet<>();
    deployment.path("replicas").forEach(row -> ids.add(row.path("replica_id").asText()));
    return ids;
  }

  /** Members of the cluster with {@code status}, as the API on {@code api} sees them. */
  static long members(int api, String status) {
    return get(api, "/api/cluster").map(cluster -> {
      long n = 0;
      for (JsonNode member : cluster.path("members")) {
        n += member.path("status").asText().equals(status) ? 1 : 0;
      }
      return n;
    }).orElse(0L);
  }

  /** Ports in {@code first..last} something listens on. */
  static int listening(int first, int last) {
    int open = 0;
    for (int port = first; port <= last; port++) {
      try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
        open++;
      } catch (IOException closed) {
        // nothing there
      }
    }
    return open;
  }

  /** Polls {@code check} every 100 ms until it holds; fails after {@code deadline}. */
  static <T> T await(String what, Duration deadline, java.util.function.Supplier<Optional<T>> check,
      NodeProcess... nodes) throws Exception {
    long end = System.nanoTime() + deadline.toNanos();
    while (true) {
      Optional<T> value = check.get();
      if (value.isPresent()) {
        return value.get();
      }
      if (System.nanoTime() > end) {
        StringBuilder logs = new StringBuilder();
        for (NodeProcess node : nodes) {
          logs.append("\n---- ").append(node.log).append('\n').append(tail(node.output()));
        }
        throw new AssertionError("not within " + deadline + ": " + what + logs);
      }
      Thread.sleep(100);
    }
  }

  private static String tail(String log) {
    return log.substring(Math.max(0, log.length() - 4000));
  }
}
