package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code sluice local --nodes 3}: three node processes start, the cluster serves through the
 * first one's ingress, and SIGTERM to {@code sluice local} leaves no process behind.
 */
class LocalClusterIT {

  private static final int INGRESS = 18981;
  private static final int API = 18982;
  private static final int REMOTING = 18983;

  @Test
  void threeNodeProcessesServeAndAllStopOnSigterm() throws Exception {
    try (NodeProcess local = NodeProcess.start(NodeProcesses.JVM, SluiceCli.class,
        List.of("local", "--nodes", "3", "--port", String.valueOf(INGRESS), "--api-port",
            String.valueOf(API), "--router-port", "-1", "--remoting-port",
            String.valueOf(REMOTING)), Map.of())) {
      // The banner's last line: everything before it has been written.
      local.awaitOutput("Ctrl-C stops every node", Duration.ofSeconds(150));
      List<ProcessHandle> nodes = local.process.descendants().toList();
      assertThat(nodes).as("node processes").hasSize(3);
      assertThat(local.output()).contains("Sluice local is ready: 3 node processes",
          "control-1 (control,ingress", "replica-1 (replica",
          "replica-2 (replica");

      HttpResponse<String> answer = TestNodes.post(INGRESS, "/v1/chat/completions",
          "{\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}],\"max_tokens\":4}");
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      assertThat(NodeProcesses.members(API, "Up")).isEqualTo(3);

      local.process.destroy();  // SIGTERM
      assertThat(local.process.waitFor(90, TimeUnit.SECONDS)).as("sluice local exits").isTrue();
      for (ProcessHandle node : nodes) {
        node.onExit().get(10, TimeUnit.SECONDS);
        assertThat(node.isAlive()).as("node process " + node.pid()).isFalse();
      }
      assertThat(local.output()).contains("every node stopped");
    }
  }
}
