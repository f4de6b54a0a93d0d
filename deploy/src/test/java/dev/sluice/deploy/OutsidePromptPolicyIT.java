package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.ReadsPrompt;
import dev.sluice.router.spi.RequestRouter;
import java.net.http.HttpResponse;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An outside routing policy (a class name in {@code request_router_class}) that routes by the
 * prompt gets it with body forwarding off (the default) when it says so: {@link ReadsPrompt}.
 */
class OutsidePromptPolicyIT {

  /** Picks a replica by the prompt's hash; without a prompt, the first replica by id. */
  public static class ByPromptHash implements RequestRouter {
    @Override
    public List<List<ReplicaInfo>> chooseReplicas(
        List<ReplicaInfo> candidates, PendingRequest request) {
      if (candidates.isEmpty()) {
        return List.of();
      }
      List<ReplicaInfo> sorted = candidates.stream()
          .sorted(Comparator.comparing(replica -> replica.id().toString())).toList();
      int index = request.prompt().map(prompt -> Math.floorMod(prompt.hashCode(), sorted.size()))
          .orElse(0);
      return List.of(List.of(sorted.get(index)));
    }
  }

  /** The same policy, saying that it reads the prompt. */
  public static final class ByPromptHashReadingIt extends ByPromptHash implements ReadsPrompt {}

  private static String app(Class<?> policy) {
    return """
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: sim}
                engine_config: {type: simulated, ttft_ms: 0, itl_ms: 0, default_max_tokens: 2}
                deployment_config:
                  num_replicas: 3
                  request_router_config:
                    request_router_class: %s
        """.formatted(policy.getName());
  }

  private static HttpResponse<String> ask(int ingress, String question) throws Exception {
    return TestNodes.post(ingress, "/v1/chat/completions",
        "{\"model\":\"sim\",\"messages\":[{\"role\":\"user\",\"content\":\"" + question
            + "\"}]}");
  }

  /** Each of 12 questions, asked twice: the replica that served each (the same both times). */
  private static Map<String, String> servedBy(Class<?> policy) throws Exception {
    try (SluiceNode node = TestNodes.local(app(policy),
        ConfigFactory.parseString("sluice.ingress.forward-body = off"))) {
      int ingress = node.ingressPort().orElseThrow();
      Map<String, String> servedBy = new HashMap<>();
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 12; i++) {
          HttpResponse<String> response = ask(ingress, "question " + i);
          assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
          String replica = response.headers().firstValue("x-sluice-replica").orElseThrow();
          assertThat(servedBy.computeIfAbsent("question " + i, key -> replica))
              .as("question %d's replica", i).isEqualTo(replica);
        }
      }
      return servedBy;
    }
  }

  @Test
  void aPolicyThatReadsThePromptGetsItWithForwardingOff() throws Exception {
    assertThat(new HashSet<>(servedBy(ByPromptHashReadingIt.class).values()))
        .as("the prompts spread by their hash").hasSizeGreaterThan(1);
  }

  @Test
  void withoutSayingSoItGetsNoPromptWithForwardingOff() throws Exception {
    assertThat(new HashSet<>(servedBy(ByPromptHash.class).values()))
        .as("every request without its prompt: the first replica").hasSize(1);
  }
}
