package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.testing.Sse;
import dev.sluice.replica.engine.SimulatedEngine;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The rollback path across two node processes: the relayed ingress on one node, the replica on
 * another, tokens through a stream ref over Artery. At 256 concurrent streams (where it once
 * broke streams and refused requests) every stream is complete and exact, and a whole answer
 * larger than Artery's largest message arrives whole.
 */
class RelayedStreamsIT {

  private static final int CONTROL_REMOTING = 18961;
  private static final int REPLICA_REMOTING = 18962;
  private static final int INGRESS = 18963;
  private static final int RELAYED = 18964;
  private static final int API = 18965;
  private static final int STREAMS = 256;
  private static final int TOKENS = 256;
  private static final int BIG_TOKENS = 8_000;

  @Test
  void everyOneOf256ConcurrentRelayedStreamsIsComplete() throws Exception {
    Path app = TestNodes.appFile(TestNodes.app(1, 0, 0, 1024));
    String seeds = "127.0.0.1:" + CONTROL_REMOTING;
    try (NodeProcess control = NodeProcess.start(NodeProcesses.JVM, SluiceCli.class,
            List.of("node", "--roles", "control,ingress", "--port",
                String.valueOf(CONTROL_REMOTING), "--seed-nodes", seeds, "--ingress-port",
                String.valueOf(INGRESS), "--api-port", String.valueOf(API), "--router-port", "-1",
                "--config", app.toString()),
            Map.of("SLUICE_INGRESS_RELAYED_PORT", String.valueOf(RELAYED)));
        NodeProcess replica = NodeProcesses.replica(REPLICA_REMOTING, seeds, "18966-18969")) {
      NodeProcesses.await("the replica running", Duration.ofSeconds(90),
          () -> NodeProcesses.deployment(API).filter(d -> d.path("current_replicas").asInt() == 1),
          control, replica);

      ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
      ExecutorService clients = Executors.newFixedThreadPool(STREAMS);
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < STREAMS; i++) {
        String prompt = "relayed " + i;
        done.add(clients.submit(() -> {
          try {
            HttpResponse<String> answer = TestNodes.post(RELAYED, "/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}],"
                    + "\"max_tokens\":" + TOKENS + ",\"stream\":true}");
            if (answer.statusCode() != 200 || !answer.body().endsWith("data: [DONE]\n\n")) {
              failures.add(answer.statusCode() + " " + answer.headers()
                  .firstValue("x-serve-reason").orElse("") + " " + tail(answer.body()));
            } else if (!Sse.text(Sse.jsonFrames(answer.body()))
                .equals(SimulatedEngine.text(prompt, TOKENS))) {
              failures.add("wrong text for '" + prompt + "'");
            }
          } catch (Exception e) {
            failures.add(e.toString());
          }
        }));
      }
      for (Future<?> each : done) {
        each.get();
      }
      clients.shutdown();
      assertThat(failures).as("streams not complete or not exact (of " + STREAMS + ")")
          .isEmpty();
      assertThat(control.output()).doesNotContain("Illegal sequence nr")
          .doesNotContain("did not subscribe");

      // A whole answer over Artery's largest message (256 KiB) crosses in pieces.
      HttpResponse<String> whole = TestNodes.post(RELAYED, "/v1/completions",
          "{\"prompt\":\"big\",\"max_tokens\":" + BIG_TOKENS + ",\"n\":8}");
      assertThat(whole.statusCode()).as(tail(whole.body())).isEqualTo(200);
      assertThat(whole.body().length()).isGreaterThan(256 * 1024);
      JsonNode choices = Sse.json(whole.body()).get("choices");
      assertThat(choices).hasSize(8);
      for (int i = 0; i < 8; i++) {
        assertThat(choices.get(i).get("text").asText()).as("choice %d", i)
            .isEqualTo(SimulatedEngine.text("big", Optional.empty(), i, BIG_TOKENS));
      }
    }
  }

  private static String tail(String body) {
    return body.substring(Math.max(0, body.length() - 200));
  }
}
