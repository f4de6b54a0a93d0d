package dev.sluice.replica.http;


import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.config.EngineConfig;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.BodyProbes;
import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.Sse;
import dev.sluice.replica.engine.SimulatedEngine;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.stream.Materializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ReplicaEndpointIT {

  private static final ActorTestKit testKit = ActorTestKit.create(
      ConfigFactory.parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
  private static final HttpClient client = HttpClient.newHttpClient();
  private static final SimulatedEngine engine =
      new SimulatedEngine(new EngineConfig("simulated", 0, 10, 8, 4096, 256, 4096));
  private static ReplicaHttpHandler handler;
  private static ServerBinding binding;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    handler = new ReplicaHttpHandler(testKit.system(), new ReplicaEndpointSettings(
        "llm#sim#abcd1234", "sim", 2, 8, 4096, 1 << 20, Duration.ofSeconds(5),
        Duration.ofSeconds(5), Duration.ofSeconds(5)), engine);
    binding = ReplicaServer.bind(testKit.system(), "127.0.0.1", List.of(0), handler)
        .toCompletableFuture().get();
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
  }

  @AfterAll
  static void stop() {
    binding.unbind();
    testKit.shutdownTestKit();
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(base + path))
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .header("content-type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void streamsChatCompletionAsSse() throws Exception {
    HttpResponse<String> response = post("/v1/chat/completions", """
        {"model":"sim","messages":[{"role":"user","content":"hi"}],"max_tokens":5,
         "stream":true,"stream_options":{"include_usage":true}}""");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
    assertThat(response.headers().firstValue("x-sluice-served-by")).hasValue("llm#sim#abcd1234");
    List<JsonNode> frames = Sse.jsonFrames(response.body());
    assertThat(frames.get(0).at("/choices/0/delta/role").asText()).isEqualTo("assistant");
    assertThat(frames).allSatisfy(f ->
        assertThat(f.get("object").asText()).isEqualTo("chat.completion.chunk"));
    JsonNode last = frames.get(frames.size() - 2);
    assertThat(last.at("/choices/0/finish_reason").asText()).isEqualTo("length");
    JsonNode usage = frames.get(frames.size() - 1).get("usage");
    assertThat(usage.get("completion_tokens").asInt()).isEqualTo(5);
    assertThat(Sse.text(frames)).isEqualTo(SimulatedEngine.text("hi", 5));
  }

  @Test
  void answersWholeCompletionWithDefaultLength() throws Exception {
    HttpResponse<String> response = post("/v1/completions", "{\"prompt\":\"once\"}");

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode json = Sse.json(response.body());
    assertThat(json.get("object").asText()).isEqualTo("text_completion");
    assertThat(json.at("/choices/0/text").asText()).isEqualTo(SimulatedEngine.text("once", 8));
    assertThat(json.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
    assertThat(json.at("/usage/completion_tokens").asInt()).isEqualTo(8);
  }

  @Test
  void badInputGetsOpenAiErrorsNamingTheField() throws Exception {
    assertError(post("/v1/chat/completions", "{\"messages\": [}"), 400, "invalid_json", null);
    assertError(post("/v1/chat/completions", "{\"max_tokens\": 3}"), 400, "invalid_request",
        "messages");
    assertError(post("/v1/chat/completions",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":-1}"), 400,
        "invalid_request", "max_tokens");
    assertError(post("/v1/chat/completions",
        "{\"model\":\"other\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"), 404,
        "model_not_found", "model");
    assertError(post("/v2/nothing", "{}"), 404, "not_found", null);
    HttpResponse<String> gzip = client.send(HttpRequest.newBuilder(
            URI.create(base + "/v1/completions"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"x\"}"))
        .header("content-type", "application/json").header("content-encoding", "gzip").build(),
        HttpResponse.BodyHandlers.ofString());
    assertError(gzip, 415, "unsupported_media_type", null);
    assertThat(gzip.headers().firstValue("accept-encoding")).hasValue("identity");
    assertThat(handler.slots().ongoing()).isZero();
  }

  /**
   * A body too large (by its Content-Length or chunked) gets its 413 and a stalled one its 408,
   * both read by the client (not a reset connection), and no slot is held after.
   */
  @Test
  void bodiesTooLargeOrTooSlowGetAnswersTheClientReads() throws Exception {
    int port = binding.localAddress().getPort();
    RawHttp.Response declared = BodyProbes.post(port, "/v1/chat/completions", 2 << 20, false);
    RawHttp.Response chunked = BodyProbes.post(port, "/v1/chat/completions", 2 << 20, true);
    RawHttp.Response stalled = BodyProbes.stalled(port, "/v1/completions", true,
        Duration.ofSeconds(30));

    assertThat(declared).isNotNull();
    assertThat(declared.status()).isEqualTo(413);
    assertThat(Sse.json(declared.body()).at("/error/message").asText())
        .isEqualTo("The request body is 2097152 bytes; the limit is 1048576");
    assertThat(chunked).isNotNull();
    assertThat(chunked.status()).isEqualTo(413);
    assertThat(Sse.json(chunked.body()).at("/error/code").asText()).isEqualTo("payload_too_large");
    assertThat(stalled).isNotNull();
    assertThat(stalled.status()).isEqualTo(408);
    assertThat(stalled.header("connection")).isEqualTo("close");
    assertThat(Sse.json(stalled.body()).at("/error/message").asText())
        .isEqualTo("The request body did not arrive within 5 s");
    Await.until(Duration.ofSeconds(10), "no slot held", () -> handler.slots().ongoing() == 0);
  }

  /**
   * Bodies past what the server itself would read (four times the limit) get their 413 too, and
   * a client waiting for 100 Continue gets it without sending the body.
   */
  @Test
  void bodiesFarTooLargeGetAnswersTheClientReads() throws Exception {
    int port = binding.localAddress().getPort();
    List<RawHttp.Response> answers = BodyProbes.farTooLarge(port, "POST", "/v1/completions",
        5 << 20, 5L << 30);

    assertThat(answers).allSatisfy(answer -> assertThat(answer).isNotNull()
        .extracting(RawHttp.Response::status).isEqualTo(413));
    Await.until(Duration.ofSeconds(10), "no slot held", () -> handler.slots().ongoing() == 0);
  }

  private static void assertError(HttpResponse<String> response, int status, String code,
      String param) {
    assertThat(response.statusCode()).isEqualTo(status);
    JsonNode error = Sse.json(response.body()).get("error");
    assertThat(error.get("code").asText()).isEqualTo(code);
    assertThat(error.get("message").asText()).isNotBlank();
    assertThat(error.get("type").asText()).isNotBlank();
    if (param == null) {
      assertThat(error.get("param").isNull()).isTrue();
    } else {
      assertThat(error.get("param").asText()).isEqualTo(param);
      assertThat(error.get("message").asText()).contains(param);
    }
  }

  @Test
  void oneOverCapacityIsRefusedWithReason() throws Exception {
    try (Socket first = openStream(); Socket second = openStream()) {
      Await.until(Duration.ofSeconds(5), "two slots taken", () -> handler.slots().ongoing() == 2);

      HttpResponse<String> third = post("/v1/chat/completions",
          "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");

      assertThat(third.statusCode()).isEqualTo(503);
      assertThat(third.headers().firstValue("x-serve-reason")).hasValue("replica_at_capacity");
    }
    Await.until(Duration.ofSeconds(2), "slots freed after disconnect",
        () -> handler.slots().ongoing() == 0);
  }

  @Test
  void clientDisconnectAbortsTheEngineAndFreesTheSlot() throws Exception {
    long abortedBefore = engine.stats().aborted();
    try (Socket socket = openStream()) {
      BufferedReader reader = new BufferedReader(
          new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = reader.readLine()) != null && !line.startsWith("data: ")) {
        // skip the response head
      }
      assertThat(line).startsWith("data: ");
      assertThat(handler.slots().ongoing()).isEqualTo(1);
    }
    Await.until(Duration.ofSeconds(1), "slot freed", () -> handler.slots().ongoing() == 0);
    Await.until(Duration.ofSeconds(1), "engine request aborted",
        () -> engine.stats().aborted() == abortedBefore + 1 && engine.stats().running() == 0);
  }

  @Test
  void headIsGetWithoutTheBodyAnd405NamesTheAllowedMethods() throws Exception {
    HttpResponse<String> head = client.send(HttpRequest.newBuilder(URI.create(base + "/-/healthz"))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    HttpResponse<String> vllmHealth = client.send(HttpRequest.newBuilder(
        URI.create(base + "/health")).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(vllmHealth.statusCode()).as("vLLM's health path too").isEqualTo(200);
    assertThat(vllmHealth.body()).isEqualTo("{\"status\":\"ok\"}");
    HttpResponse<String> get = client.send(HttpRequest.newBuilder(
        URI.create(base + "/v1/completions")).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertError(get, 405, "method_not_allowed", null);
    assertThat(get.headers().firstValue("allow")).hasValue("POST");
    HttpResponse<String> delete = client.send(HttpRequest.newBuilder(URI.create(base + "/-/stats"))
        .DELETE().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(delete.headers().firstValue("allow")).hasValue("GET, HEAD");
  }

  @Test
  void theSlotIsFreeBeforeTheAnswersLastChunkArrives() throws Exception {
    // Whoever sees an answer end (the ingress, which then hands the capacity on to the next
    // request) must find the replica's slot free already, or a capacity-aware router's next
    // request finds the replica full. Checked the moment the terminating chunk is read.
    for (int answer = 0; answer < 30; answer++) {
      try (Socket socket = openStream(2)) {
        InputStream in = socket.getInputStream();
        StringBuilder read = new StringBuilder();
        byte[] buffer = new byte[4096];
        while (!read.toString().endsWith("\r\n0\r\n\r\n")) {
          int n = in.read(buffer);
          assertThat(n).as("answer " + answer + " ended early: " + read).isPositive();
          read.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
        }
        assertThat(handler.slots().ongoing()).as("slots held after answer " + answer).isZero();
      }
    }
  }

  @Test
  void aBodyThatCameWholeIsAnsweredOnTheCallersThreadWithoutAHandOff() throws Exception {
    // Each hand-off to a parked pool thread is a wake-up on the way to the first token; a
    // request whose body Pekko already holds is parsed and its stream's answer returned at once.
    var stream = handler.apply(org.apache.pekko.http.javadsl.model.HttpRequest
        .POST("/v1/chat/completions").withEntity(ContentTypes.APPLICATION_JSON,
            "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":3,"
                + "\"stream\":true}")).toCompletableFuture();
    var invalid = handler.apply(org.apache.pekko.http.javadsl.model.HttpRequest
        .POST("/v1/chat/completions").withEntity(ContentTypes.APPLICATION_JSON,
            "{\"max_tokens\":3}")).toCompletableFuture();
    boolean answeredAtOnce = stream.isDone();
    boolean refusedAtOnce = invalid.isDone();

    // Read to its end first, whatever the outcome: an answer never read holds its slot.
    var answer = stream.get(10, TimeUnit.SECONDS);
    String body = answer.entity().getDataBytes()
        .runFold("", (text, bytes) -> text + bytes.utf8String(),
            Materializer.matFromSystem(testKit.system()))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(answeredAtOnce).as("the stream's answer returned at once").isTrue();
    assertThat(refusedAtOnce).as("the refusal returned at once").isTrue();
    assertThat(answer.status().intValue()).isEqualTo(200);
    assertThat(invalid.get().status().intValue()).isEqualTo(400);
    assertThat(Sse.text(Sse.jsonFrames(body))).isEqualTo(SimulatedEngine.text("hi", 3));
    Await.until(Duration.ofSeconds(2), "slot freed", () -> handler.slots().ongoing() == 0);
  }

  /** Opens a long slow-ish stream on a raw socket (the client controls when it goes away). */
  private static Socket openStream() throws Exception {
    return openStream(4000);
  }

  private static Socket openStream(int maxTokens) throws Exception {
    Socket socket = new Socket("127.0.0.1", binding.localAddress().getPort());
    String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":"
        + maxTokens + ",\"stream\":true}";
    String request = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
        + "application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    OutputStream out = socket.getOutputStream();
    out.write(request.getBytes(StandardCharsets.UTF_8));
    out.flush();
    return socket;
  }
}
