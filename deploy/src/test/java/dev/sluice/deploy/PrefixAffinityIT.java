package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.testing.Sse;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Prefix-cache-affinity + the engine's prefix cache, through the ingress: requests sharing a long
 * system prompt go to one replica, whose cache then serves most of it. The policy gets the
 * prompt whether body forwarding is on or off (the default): it routes by the body.
 */
class PrefixAffinityIT {

  private static final String APP = """
      applications:
        - name: llm
          llm_configs:
            - model_loading_config: {model_id: sim}
              engine_config: {type: simulated, ttft_ms: 0, itl_ms: 0, default_max_tokens: 2}
              deployment_config:
                num_replicas: 3
                request_router_config:
                  request_router_class: prefix-cache-affinity
      """;

  @ParameterizedTest(name = "forward-body = {0}")
  @ValueSource(strings = {"on", "off"})
  void sharedSystemPromptsStickToOneReplicaAndHitItsCache(String forwardBody) throws Exception {
    try (SluiceNode node = TestNodes.local(APP,
        ConfigFactory.parseString("sluice.ingress.forward-body = " + forwardBody))) {
      int ingress = node.ingressPort().orElseThrow();
      String system = "You are Sluice's test assistant. ".repeat(64);
      Set<String> replicas = new HashSet<>();

      for (int i = 0; i < 20; i++) {
        HttpResponse<String> response = TestNodes.post(ingress, "/v1/chat/completions",
            "{\"model\":\"sim\",\"messages\":[{\"role\":\"system\",\"content\":\"" + system
                + "\"},{\"role\":\"user\",\"content\":\"question " + i + "\"}]}");
        assertThat(response.statusCode()).isEqualTo(200);
        replicas.add(response.headers().firstValue("x-sluice-replica").orElseThrow());
      }

      assertThat(replicas).hasSize(1);
      ReplicaInfo favourite = node.ingressView().replica(replicas.iterator().next())
          .orElseThrow();
      double hitRatio = Sse.json(TestNodes.get(favourite.port(), "/-/stats").body())
          .at("/engine/prefix_cache_hit_ratio").asDouble();
      assertThat(hitRatio).isGreaterThan(0.8);
    }
  }
}
