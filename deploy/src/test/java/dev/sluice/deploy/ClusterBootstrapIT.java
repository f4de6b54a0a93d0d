package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The bootstrap path Kubernetes uses, with config discovery instead of the Kubernetes API: three
 * node processes started without {@code --seed-nodes} find each other through Pekko
 * Management's contact points, form one cluster, report ready, and serve.
 */
class ClusterBootstrapIT {

  private static final int[] REMOTING = {18901, 18902, 18903};
  private static final int[] MANAGEMENT = {18911, 18912, 18913};
  private static final int INGRESS = 18921;
  private static final int API = 18931;
  private static final String CONTACT_POINTS =
      "127.0.0.1:18911,127.0.0.1:18912,127.0.0.1:18913";

  @Test
  void threeNodesFormAClusterWithoutSeedNodesAndServe() throws Exception {
    Path app = TestNodes.appFile(TestNodes.app(1, 0, 0, 16));
    List<NodeProcess> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        List<String> args = new ArrayList<>(List.of("node", "--roles",
            i == 0 ? "control,ingress" : "replica", "--host", "127.0.0.1", "--port",
            String.valueOf(REMOTING[i]), "--discovery", "config", "--contact-points",
            CONTACT_POINTS, "--required-contact-points", "3", "--management-port",
            String.valueOf(MANAGEMENT[i])));
        if (i == 0) {
          args.addAll(List.of("--ingress-port", String.valueOf(INGRESS), "--api-port",
              String.valueOf(API), "--router-port", "-1", "--config", app.toString()));
        }
        nodes.add(NodeProcess.start(NodeProcesses.JVM, SluiceCli.class, args,
            Map.of("SLUICE_REPLICA_PORT_RANGE", (18940 + 10 * i) + "-" + (18949 + 10 * i))));
      }
      NodeProcess[] all = nodes.toArray(NodeProcess[]::new);
      NodeProcesses.await("3 members Up, formed by the bootstrap", Duration.ofSeconds(90),
          () -> NodeProcesses.members(API, "Up") == 3 ? Optional.of(true) : Optional.empty(),
          all);
      for (int port : MANAGEMENT) {
        NodeProcesses.await("ready on management port " + port, Duration.ofSeconds(30),
            () -> status(port, "/ready") == 200 ? Optional.of(true) : Optional.empty(), all);
        assertThat(status(port, "/alive")).isEqualTo(200);
      }
      NodeProcesses.await("the replica running", Duration.ofSeconds(60),
          () -> NodeProcesses.deployment(API).filter(d -> d.path("current_replicas").asInt() == 1),
          all);
      HttpResponse<String> answer = TestNodes.post(INGRESS, "/v1/chat/completions",
          "{\"messages\":[{\"role\":\"user\",\"content\":\"bootstrapped\"}],\"max_tokens\":3}");
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    } finally {
      for (NodeProcess node : nodes) {
        node.close();
      }
    }
  }

  private static int status(int port, String path) {
    try {
      return TestNodes.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
          + path)).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (Exception notYet) {
      return 0;
    }
  }
}
