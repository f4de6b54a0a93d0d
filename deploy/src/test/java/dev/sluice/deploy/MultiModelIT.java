package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.NotFoundException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.typesafe.config.ConfigFactory;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * One application serving two models, with body forwarding off (the default): the ingress reads
 * each request's {@code model} and the router picks among that model's replicas only. Checked
 * with raw HTTP and with OpenAI's own Java client.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiModelIT {

  private static final String TWO_MODELS = """
      applications:
        - name: llm
          llm_configs:
            - model_loading_config: {model_id: alpha}
              engine_config: {type: simulated, ttft_ms: 0, itl_ms: 1, default_max_tokens: 8}
              deployment_config: {num_replicas: 2}
            - model_loading_config: {model_id: beta}
              engine_config: {type: simulated, ttft_ms: 0, itl_ms: 1, default_max_tokens: 8}
              deployment_config: {num_replicas: 1}
      """;
  private static final ObjectMapper JSON = new ObjectMapper();

  private SluiceNode node;
  private int ingress;

  @BeforeAll
  void start() throws Exception {
    node = TestNodes.local(TWO_MODELS, ConfigFactory.empty());
    ingress = node.ingressPort().orElseThrow();
  }

  @AfterAll
  void stop() {
    node.close();
  }

  private HttpResponse<String> chat(String bodyFields) throws Exception {
    return TestNodes.post(ingress, "/v1/chat/completions", "{" + bodyFields
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}");
  }

  @Test
  void eachRequestLandsOnItsModelsReplicas() throws Exception {
    List<String> alphaReplicas = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String model = i % 2 == 0 ? "alpha" : "beta";
      // The model anywhere in the body, also after the messages.
      HttpResponse<String> response = TestNodes.post(ingress, "/v1/chat/completions",
          "{\"messages\":[{\"role\":\"user\",\"content\":\"hello " + i + "\"}],\"stream\":true,"
              + "\"model\":\"" + model + "\"}");
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      String servedBy = response.headers().firstValue("x-sluice-served-by").orElseThrow();
      assertThat(servedBy).startsWith("llm#" + model + "#");
      assertThat(response.body()).contains("\"model\":\"" + model + "\"");
      if (model.equals("alpha")) {
        alphaReplicas.add(servedBy);
      }
      HttpResponse<String> whole = chat("\"model\":\"" + model + "\",");
      assertThat(whole.statusCode()).as(whole.body()).isEqualTo(200);
      assertThat(JSON.readTree(whole.body()).path("model").asText()).isEqualTo(model);
      String wholeServedBy = whole.headers().firstValue("x-sluice-served-by").orElseThrow();
      assertThat(wholeServedBy).startsWith("llm#" + model + "#");
      if (model.equals("alpha")) {
        alphaReplicas.add(wholeServedBy);
      }
    }
    assertThat(alphaReplicas.stream().distinct()).as("both of alpha's replicas").hasSize(2);
  }

  @Test
  void anUnknownModelIs404ModelNotFound() throws Exception {
    HttpResponse<String> response = chat("\"model\":\"gamma\",");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(404);
    JsonNode error = JSON.readTree(response.body()).path("error");
    assertThat(error.path("code").asText()).isEqualTo("model_not_found");
    assertThat(error.path("param").asText()).isEqualTo("model");
    assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.path("message").asText()).contains("gamma").contains("alpha, beta");
    // A model name of half a megabyte is not carried to the router, and not quoted back whole.
    HttpResponse<String> huge = chat("\"model\":\"" + "g".repeat(500_000) + "\",");
    assertThat(huge.statusCode()).as(huge.body()).isEqualTo(404);
    assertThat(huge.body().length()).isLessThan(1_000);
  }

  @Test
  void aRequestNamingNoModelIs400WhenSeveralAreServed() throws Exception {
    HttpResponse<String> response = chat("");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
    JsonNode error = JSON.readTree(response.body()).path("error");
    assertThat(error.path("param").asText()).isEqualTo("model");
    assertThat(error.path("message").asText()).contains("alpha, beta");
  }

  @Test
  void modelsListsBoth() throws Exception {
    JsonNode models = JSON.readTree(TestNodes.get(ingress, "/v1/models").body()).path("data");

    assertThat(models.findValuesAsText("id")).containsExactly("alpha", "beta");
    assertThat(TestNodes.get(ingress, "/v1/models/beta").statusCode()).isEqualTo(200);
  }

  @Test
  void openAisOwnClientRoundTripsTheModel() {
    OpenAIClient client = OpenAIOkHttpClient.builder()
        .baseUrl("http://127.0.0.1:" + ingress + "/v1").apiKey("unused").maxRetries(0).build();
    try {
      for (String model : List.of("alpha", "beta")) {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
            .model(model).addUserMessage("hello").maxCompletionTokens(4).build();
        ChatCompletion completion = client.chat().completions().create(params);
        assertThat(completion.model()).isEqualTo(model);
        assertThat(completion.choices().get(0).message().content()).isPresent();
        List<ChatCompletionChunk> chunks = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> stream =
            client.chat().completions().createStreaming(params)) {
          stream.stream().forEach(chunks::add);
        }
        assertThat(chunks).isNotEmpty().allSatisfy(chunk ->
            assertThat(chunk.model()).isEqualTo(model));
      }
      Assertions.assertThatThrownBy(() -> client.chat().completions().create(
              ChatCompletionCreateParams.builder().model("gamma").addUserMessage("x").build()))
          .isInstanceOf(NotFoundException.class);
    } finally {
      client.close();
    }
  }
}
