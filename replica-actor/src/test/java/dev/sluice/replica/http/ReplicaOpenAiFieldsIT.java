package dev.sluice.replica.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.config.EngineConfig;
import dev.sluice.core.testing.Sse;
import dev.sluice.replica.engine.SimulatedEngine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAI fields the simulated engine honours, through a real replica endpoint on loopback:
 * {@code stop}, {@code n}, {@code seed}, the context length, and those it refuses.
 */
class ReplicaOpenAiFieldsIT {

  private static final String REPLICA = "llm#sim#fields01";
  private static final int MAX_MODEL_LEN = 512;
  private static final ActorTestKit testKit = ActorTestKit.create(ConfigFactory
      .parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
  private static final HttpClient client = HttpClient.newHttpClient();
  private static final SimulatedEngine engine =
      new SimulatedEngine(new EngineConfig("simulated", 0, 0, 8, MAX_MODEL_LEN, 16, 256));
  private static ReplicaHttpHandler handler;
  private static ServerBinding binding;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    handler = new ReplicaHttpHandler(testKit.system(), new ReplicaEndpointSettings(
        REPLICA, "sim", 8, 8, MAX_MODEL_LEN, 1 << 20, Duration.ofSeconds(5),
        Duration.ofSeconds(5), Duration.ofSeconds(5)), engine);
    binding = ReplicaServer.bind(testKit.system(), "127.0.0.1", List.of(0), handler)
        .toCompletableFuture().get();
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
  }

  @AfterAll
  static void stop() {
    binding.unbind();
    handler.close();
    testKit.shutdownTestKit();
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(base + path))
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .header("content-type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String chat(String prompt, String fields) {
    return "{\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]," + fields + "}";
  }

  /**
   * A stop string taken from the answer itself (token 3 of it), the text before its first
   * appearance and the number of tokens generated up to the one that completes it.
   */
  private record Stop(String stop, String text, int tokens) {
    static Stop of(String prompt, int maxTokens) {
      String full = SimulatedEngine.text(prompt, maxTokens);
      String stop = SimulatedEngine.token(prompt, 3).strip();
      int at = full.indexOf(stop);
      int tokens = 0;
      for (int length = 0; length < at + stop.length(); tokens++) {
        length += SimulatedEngine.token(prompt, tokens).length();
      }
      return new Stop(stop, full.substring(0, at), tokens);
    }
  }

  @Test
  void aStopStringEndsTheWholeAnswerBeforeIt() throws Exception {
    Stop stop = Stop.of("the stop", 20);

    HttpResponse<String> response = post("/v1/completions", "{\"prompt\":\"the stop\","
        + "\"max_tokens\":20,\"stop\":[\"never there\",\"" + stop.stop() + "\"]}");

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode json = Sse.json(response.body());
    assertThat(json.at("/choices/0/text").asText()).isEqualTo(stop.text());
    assertThat(json.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
    assertThat(json.at("/usage/completion_tokens").asInt()).isEqualTo(stop.tokens())
        .isLessThan(20);
    assertThat(handler.slots().ongoing()).isZero();
  }

  @Test
  void aStreamEndsBeforeTheStopStringAndCountsWhatItGenerated() throws Exception {
    Stop stop = Stop.of("stream stop", 20);

    HttpResponse<String> response = post("/v1/chat/completions", chat("stream stop",
        "\"max_tokens\":20,\"stop\":\"" + stop.stop() + "\",\"stream\":true,"
            + "\"stream_options\":{\"include_usage\":true}"));

    assertThat(response.statusCode()).isEqualTo(200);
    List<JsonNode> frames = Sse.jsonFrames(response.body());
    assertThat(Sse.text(frames)).isEqualTo(stop.text());
    assertThat(frames.get(frames.size() - 2).at("/choices/0/finish_reason").asText())
        .isEqualTo("stop");
    assertThat(frames.get(frames.size() - 1).at("/usage/completion_tokens").asInt())
        .isEqualTo(stop.tokens());
  }

  @Test
  void aStopStringThatNeverComesChangesNothing() throws Exception {
    HttpResponse<String> response = post("/v1/chat/completions", chat("no stop",
        "\"max_tokens\":6,\"stop\":[\"zebra\"]"));

    JsonNode json = Sse.json(response.body());
    assertThat(json.at("/choices/0/message/content").asText())
        .isEqualTo(SimulatedEngine.text("no stop", 6));
    assertThat(json.at("/choices/0/finish_reason").asText()).isEqualTo("length");
    assertThat(json.at("/usage/completion_tokens").asInt()).isEqualTo(6);
  }

  @Test
  void nChoicesEachHaveTheirIndexAndTheirOwnText() throws Exception {
    HttpResponse<String> response = post("/v1/chat/completions", chat("three",
        "\"max_tokens\":7,\"n\":3"));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("x-sluice-served-by")).hasValue(REPLICA);
    JsonNode choices = Sse.json(response.body()).get("choices");
    assertThat(choices).hasSize(3);
    for (int i = 0; i < 3; i++) {
      assertThat(choices.get(i).get("index").asInt()).isEqualTo(i);
      assertThat(choices.get(i).at("/message/content").asText())
          .isEqualTo(SimulatedEngine.text("three", Optional.empty(), i, 7));
    }
    assertThat(choices.get(0).at("/message/content").asText())
        .isEqualTo(SimulatedEngine.text("three", 7))
        .isNotEqualTo(choices.get(1).at("/message/content").asText());
    assertThat(Sse.json(response.body()).at("/usage/completion_tokens").asInt()).isEqualTo(21);
  }

  @Test
  void nStreamedChoicesEachGetTheirRoleTextAndFinishFrame() throws Exception {
    HttpResponse<String> response = post("/v1/chat/completions", chat("two",
        "\"max_tokens\":9,\"n\":2,\"seed\":11,\"stream\":true,"
            + "\"stream_options\":{\"include_usage\":true}"));

    List<JsonNode> frames = Sse.jsonFrames(response.body());
    Map<Integer, List<JsonNode>> byChoice = new TreeMap<>();
    for (JsonNode frame : frames.subList(0, frames.size() - 1)) {
      assertThat(frame.get("choices")).hasSize(1);
      byChoice.computeIfAbsent(frame.at("/choices/0/index").asInt(), i -> new ArrayList<>())
          .add(frame);
    }
    assertThat(byChoice).containsOnlyKeys(0, 1);
    for (int i = 0; i < 2; i++) {
      List<JsonNode> own = byChoice.get(i);
      assertThat(own.get(0).at("/choices/0/delta/role").asText()).isEqualTo("assistant");
      assertThat(Sse.text(own)).isEqualTo(SimulatedEngine.text("two", Optional.of(11L), i, 9));
      assertThat(own.get(own.size() - 1).at("/choices/0/finish_reason").asText())
          .isEqualTo("length");
      assertThat(own.subList(0, own.size() - 1))
          .allSatisfy(f -> assertThat(f.at("/choices/0/finish_reason").isNull()).isTrue());
    }
    JsonNode usage = frames.get(frames.size() - 1);
    assertThat(usage.get("choices")).isEmpty();
    assertThat(usage.at("/usage/completion_tokens").asInt()).isEqualTo(18);
  }

  @Test
  void nChoicesWithAStopStringStopEachOnItsOwn() throws Exception {
    String prompt = "stop each";
    String stop = SimulatedEngine.token(prompt, 2).strip();

    HttpResponse<String> response = post("/v1/completions", "{\"prompt\":\"" + prompt + "\","
        + "\"max_tokens\":40,\"n\":4,\"stop\":\"" + stop + "\",\"stream\":true}");

    List<JsonNode> frames = Sse.jsonFrames(response.body());
    for (int i = 0; i < 4; i++) {
      int index = i;
      List<JsonNode> own = frames.stream()
          .filter(f -> f.at("/choices/0/index").asInt() == index).toList();
      String full = SimulatedEngine.text(prompt, Optional.empty(), i, 40);
      String expected = full.contains(stop) ? full.substring(0, full.indexOf(stop)) : full;
      assertThat(Sse.text(own)).as("choice %d", i).isEqualTo(expected);
      assertThat(own.get(own.size() - 1).at("/choices/0/finish_reason").asText())
          .isEqualTo(full.contains(stop) ? "stop" : "length");
    }
  }

  @Test
  void theSameSeedGivesTheSameTextAndAnotherSeedAnother() throws Exception {
    String seven = Sse.json(post("/v1/completions",
        "{\"prompt\":\"seeded\",\"max_tokens\":10,\"seed\":7}").body()).at("/choices/0/text")
        .asText();
    String again = Sse.json(post("/v1/completions",
        "{\"prompt\":\"seeded\",\"max_tokens\":10,\"seed\":7}").body()).at("/choices/0/text")
        .asText();
    String eight = Sse.json(post("/v1/completions",
        "{\"prompt\":\"seeded\",\"max_tokens\":10,\"seed\":8}").body()).at("/choices/0/text")
        .asText();

    assertThat(seven).isEqualTo(again)
        .isEqualTo(SimulatedEngine.text("seeded", Optional.of(7L), 0, 10))
        .isNotEqualTo(eight)
        .isNotEqualTo(SimulatedEngine.text("seeded", 10));
  }

  @Test
  void aPromptAndCompletionOverTheContextAreRefusedAsVllmDoes() throws Exception {
    HttpResponse<String> response = post("/v1/chat/completions", chat("x".repeat(40),
        "\"max_tokens\":" + (MAX_MODEL_LEN - 5)));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.headers().firstValue("x-sluice-served-by")).hasValue(REPLICA);
    JsonNode error = Sse.json(response.body()).get("error");
    assertThat(error.get("param").asText()).isEqualTo("messages");
    assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.get("message").asText()).isEqualTo("This model's maximum context length is"
        + " 512 tokens. However, you requested 517 tokens (10 in the messages, 507 in the"
        + " completion). Please reduce the length of the messages or completion.");
    assertThat(handler.slots().ongoing()).isZero();
  }

  @Test
  void whatTheSimulatedEngineCannotDoIsRefusedNamingTheField() throws Exception {
    HttpResponse<String> tools = post("/v1/chat/completions", chat("t",
        "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],\"stream\":true"));
    HttpResponse<String> echo = post("/v1/completions", "{\"prompt\":\"e\",\"echo\":true}");
    HttpResponse<String> hot = post("/v1/completions", "{\"prompt\":\"e\",\"temperature\":3}");

    assertThat(tools.statusCode()).isEqualTo(400);
    assertThat(Sse.json(tools.body()).at("/error/param").asText()).isEqualTo("tools");
    assertThat(Sse.json(echo.body()).at("/error/param").asText()).isEqualTo("echo");
    assertThat(Sse.json(hot.body()).at("/error/message").asText())
        .isEqualTo("temperature: 3 (expected: a number from 0 to 2)");
    assertThat(handler.slots().ongoing()).isZero();
  }

  @Test
  void aWholeAnswerSaysWhichReplicaServedIt() throws Exception {
    HttpResponse<String> response = post("/v1/completions",
        "{\"prompt\":\"who\",\"max_completion_tokens\":3}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("x-sluice-served-by")).hasValue(REPLICA);
    assertThat(Sse.json(response.body()).at("/choices/0/finish_reason").asText())
        .isEqualTo("length");
  }

  @Test
  void streamedRequestsAreCheckedAsWholeOnesAndCountTheNewerMaxName() throws Exception {
    String stream = "\"stream\":true";
    Map<String, HttpResponse<String>> refused = new TreeMap<>(Map.of(
        "messages", post("/v1/chat/completions", chat("x".repeat(40),
            "\"max_tokens\":" + (MAX_MODEL_LEN - 5) + "," + stream)),
        "top_p", post("/v1/chat/completions", chat("p", "\"top_p\":1.5," + stream)),
        "frequency_penalty", post("/v1/completions",
            "{\"prompt\":\"f\",\"frequency_penalty\":-3," + stream + "}"),
        "response_format", post("/v1/chat/completions", chat("r",
            "\"response_format\":{\"type\":\"json_schema\"}," + stream)),
        "logprobs", post("/v1/chat/completions", chat("l", "\"logprobs\":true," + stream))));
    refused.forEach((field, response) -> {
      assertThat(response.statusCode()).as(field).isEqualTo(400);
      assertThat(Sse.json(response.body()).at("/error/param").asText()).as(field)
          .isEqualTo(field);
    });

    HttpResponse<String> counted = post("/v1/chat/completions", chat("newer",
        "\"max_completion_tokens\":4," + stream + ",\"stream_options\":{\"include_usage\":true}"));
    List<JsonNode> frames = Sse.jsonFrames(counted.body());
    assertThat(Sse.text(frames)).isEqualTo(SimulatedEngine.text("newer", 4));
    assertThat(frames.get(frames.size() - 1).at("/usage/completion_tokens").asInt()).isEqualTo(4);
    assertThat(handler.slots().ongoing()).isZero();
  }
}
