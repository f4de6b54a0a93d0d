package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.RawStream;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** consistent-hash through the ingress: sessions stick to one replica; a full primary is a 503. */
class SessionAffinityIT {

  private static String app(int replicas, int maxOngoing, int fallbacks) {
    return """
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: sim}
                engine_config: {type: simulated, ttft_ms: 0, itl_ms: 1, default_max_tokens: 4}
                deployment_config:
                  num_replicas: %d
                  max_ongoing_requests: %d
                  request_router_config:
                    request_router_class: consistent-hash
                    request_router_kwargs: {num_virtual_nodes: 100, num_fallback_replicas: %d}
        """.formatted(replicas, maxOngoing, fallbacks);
  }

  private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"turn\"}],"
      + "\"stream\":true}";

  @Test
  void everyTurnOfASessionLandsOnTheSameReplica() throws Exception {
    try (SluiceNode node = TestNodes.local(app(3, 64, 2), ConfigFactory.empty())) {
      int ingress = node.ingressPort().orElseThrow();
      Map<String, Set<String>> replicasBySession = new HashMap<>();
      Set<String> used = new HashSet<>();

      for (int turn = 0; turn < 10; turn++) {
        for (int session = 0; session < 50; session++) {
          HttpResponse<String> response = TestNodes.post(ingress, "/v1/chat/completions", CHAT,
              "x-session-id", "session-" + session);
          assertThat(response.statusCode()).isEqualTo(200);
          String replica = response.headers().firstValue("x-sluice-replica").orElseThrow();
          assertThat(response.headers().firstValue("x-sluice-served-by")).hasValue(replica);
          replicasBySession.computeIfAbsent("session-" + session, s -> new HashSet<>())
              .add(replica);
          used.add(replica);
        }
      }

      assertThat(replicasBySession).hasSize(50)
          .allSatisfy((session, replicas) -> assertThat(replicas).hasSize(1));
      assertThat(used).as("50 sessions spread over the 3 replicas").hasSize(3);
    }
  }

  @Test
  void aFullPrimaryWithoutFallbacksFailsInsteadOfMoving() throws Exception {
    try (SluiceNode node = TestNodes.local(app(2, 1, 0), ConfigFactory.empty());
        RawStream holder = RawStream.open(node.ingressPort().orElseThrow(),
            RawStream.longChat(30000), "x-session-id: sticky")) {
      int ingress = node.ingressPort().orElseThrow();
      // The long stream holds the session's primary busy (its only slot).
      assertThat(holder.statusLine()).startsWith("HTTP/1.1 200");
      String primary = holder.header("x-sluice-replica").orElseThrow();

      HttpResponse<String> second = TestNodes.post(ingress, "/v1/chat/completions", CHAT,
          "x-session-id", "sticky");

      assertThat(second.statusCode()).isEqualTo(503);
      assertThat(second.headers().firstValue("x-serve-reason")).hasValue("replica_at_capacity");
      assertThat(second.headers().firstValue("x-sluice-replica")).hasValue(primary);
    }
  }
}
