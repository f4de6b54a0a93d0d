package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.BodyProbes;
import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.RawStream;
import dev.sluice.core.testing.Sse;
import dev.sluice.replica.engine.SimulatedEngine;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The ingress's API contract on a one-node cluster, run once per data path (direct streaming and
 * relayed, see the subclasses): every test here must pass on both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class IngressSuite {

  private static final int MAX_BODY = 1 << 20;
  private static final int BODY_TIMEOUT_S = 3;
  private SluiceNode node;
  private int ingress;

  /** Configuration that selects the data path. */
  abstract Config pathConfig();

  abstract boolean direct();

  @BeforeAll
  void start() throws Exception {
    node = TestNodes.local(TestNodes.app(2, 0, 1, 64), pathConfig().withFallback(
        ConfigFactory.parseString("sluice.ingress.max-request-bytes = " + MAX_BODY
            + "\nsluice.ingress.splice.body-timeout = " + BODY_TIMEOUT_S + "s")));
    ingress = node.ingressPort().orElseThrow();
  }

  @AfterAll
  void stop() {
    node.close();
  }

  private List<ReplicaInfo> replicas() {
    return node.ingressView().all().iterator().next().replicas();
  }

  private static JsonNode replicaStats(ReplicaInfo replica) throws Exception {
    return Sse.json(TestNodes.get(replica.port(), "/-/stats").body());
  }

  @Test
  void streamsChatCompletionThroughTheIngress() throws Exception {
    HttpResponse<String> response = TestNodes.post(ingress, "/v1/chat/completions", """
        {"model":"sim","messages":[{"role":"user","content":"stream please"}],"max_tokens":12,
         "stream":true,"stream_options":{"include_usage":true}}""", "x-request-id", "req-1");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
    assertThat(response.headers().firstValue("x-request-id")).hasValue("req-1");
    List<JsonNode> frames = Sse.jsonFrames(response.body());
    assertThat(frames.get(0).at("/choices/0/delta/role").asText()).isEqualTo("assistant");
    assertThat(frames.get(frames.size() - 2).at("/choices/0/finish_reason").asText())
        .isEqualTo("length");
    JsonNode usage = frames.get(frames.size() - 1).get("usage");
    assertThat(usage.get("completion_tokens").asInt()).isEqualTo(12);
    assertThat(usage.get("total_tokens").asInt())
        .isEqualTo(12 + usage.get("prompt_tokens").asInt());
    assertThat(Sse.text(frames)).isEqualTo(SimulatedEngine.text("stream please", 12));
    assertThat(frames.get(1).get("id").asText()).isEqualTo("chatcmpl-req-1");
  }

  /**
   * A body too large (by its Content-Length or chunked) gets its 413, a stalled one its 408, and
   * the client reads them (not a reset connection).
   */
  @Test
  void bodiesTooLargeOrTooSlowGetAnswersTheClientReads() throws Exception {
    RawHttp.Response declared = BodyProbes.post(ingress, "/v1/chat/completions", 2 * MAX_BODY,
        false);
    RawHttp.Response chunked = BodyProbes.post(ingress, "/v1/chat/completions", 2 * MAX_BODY,
        true);
    RawHttp.Response stalled = BodyProbes.stalled(ingress, "/v1/chat/completions", false,
        Duration.ofSeconds(30));

    assertThat(declared).isNotNull();
    assertThat(declared.status()).isEqualTo(413);
    assertThat(Sse.json(declared.body()).at("/error/message").asText())
        .isEqualTo("The request body is " + 2 * MAX_BODY + " bytes; the limit is " + MAX_BODY);
    assertThat(chunked).isNotNull();
    assertThat(chunked.status()).isEqualTo(413);
    assertThat(Sse.json(chunked.body()).at("/error/message").asText())
        .isEqualTo("The request body is over the limit of " + MAX_BODY + " bytes");
    assertThat(stalled).isNotNull();
    assertThat(stalled.status()).isEqualTo(408);
    assertThat(stalled.header("connection")).isEqualTo("close");
    assertThat(Sse.json(stalled.body()).at("/error/code").asText()).isEqualTo("request_timeout");
  }

  /**
   * A body far over the limit (past what the server would read by its own settings) gets its
   * 413 too, and a client waiting for 100 Continue before sending one gets the 413 instead.
   */
  @Test
  void bodiesFarTooLargeGetAnswersTheClientReads() throws Exception {
    List<RawHttp.Response> answers = BodyProbes.farTooLarge(ingress, "POST",
        "/v1/chat/completions", 5L * MAX_BODY, 1L << 40);

    assertThat(answers).allSatisfy(answer -> assertThat(answer).isNotNull()
        .extracting(RawHttp.Response::status).isEqualTo(413));
    assertThat(Sse.json(answers.get(2).body()).at("/error/message").asText())
        .isEqualTo("The request body is " + (1L << 40) + " bytes; the limit is " + MAX_BODY);
  }

  @Test
  void answersNonStreamingChatAndCompletions() throws Exception {
    HttpResponse<String> chat = TestNodes.post(ingress, "/v1/chat/completions",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"whole\"}],\"max_tokens\":7}");
    JsonNode json = Sse.json(chat.body());
    assertThat(chat.statusCode()).isEqualTo(200);
    assertThat(json.at("/choices/0/message/content").asText())
        .isEqualTo(SimulatedEngine.text("whole", 7));
    assertThat(json.at("/usage/completion_tokens").asInt()).isEqualTo(7);

    HttpResponse<String> completion = TestNodes.post(ingress, "/v1/completions",
        "{\"prompt\":\"legacy\",\"max_tokens\":5}");
    assertThat(Sse.json(completion.body()).at("/choices/0/text").asText())
        .isEqualTo(SimulatedEngine.text("legacy", 5));

    HttpResponse<String> streamed = TestNodes.post(ingress, "/v1/completions",
        "{\"prompt\":\"legacy\",\"max_tokens\":5,\"stream\":true}");
    List<JsonNode> frames = Sse.jsonFrames(streamed.body());
    assertThat(frames).allSatisfy(f ->
        assertThat(f.get("object").asText()).isEqualTo("text_completion"));
    assertThat(Sse.text(frames)).isEqualTo(SimulatedEngine.text("legacy", 5));
  }

  /** Several choices and stop strings, streamed and whole: the same answers on both paths. */
  @Test
  void servesSeveralChoicesEachEndingAtItsStopString() throws Exception {
    String prompt = "choices";
    String stop = SimulatedEngine.token(prompt, 3).strip();
    String fields = "\"max_tokens\":30,\"n\":2,\"stop\":[\"" + stop + "\"]";

    HttpResponse<String> whole = TestNodes.post(ingress, "/v1/completions",
        "{\"prompt\":\"" + prompt + "\"," + fields + "}");
    HttpResponse<String> streamed = TestNodes.post(ingress, "/v1/completions",
        "{\"prompt\":\"" + prompt + "\"," + fields + ",\"stream\":true,"
            + "\"stream_options\":{\"include_usage\":true}}");

    assertThat(whole.statusCode()).isEqualTo(200);
    assertThat(streamed.statusCode()).isEqualTo(200);
    assertThat(whole.headers().firstValue("x-sluice-served-by")).isPresent();
    JsonNode choices = Sse.json(whole.body()).get("choices");
    List<JsonNode> frames = Sse.jsonFrames(streamed.body());
    assertThat(choices).hasSize(2);
    for (int i = 0; i < 2; i++) {
      int index = i;
      String full = SimulatedEngine.text(prompt, java.util.Optional.empty(), i, 30);
      String expected = full.contains(stop) ? full.substring(0, full.indexOf(stop)) : full;
      String reason = full.contains(stop) ? "stop" : "length";
      assertThat(choices.get(i).get("text").asText()).isEqualTo(expected);
      assertThat(choices.get(i).get("finish_reason").asText()).isEqualTo(reason);
      List<JsonNode> own = frames.stream().filter(f -> f.path("choices").size() == 1
          && f.at("/choices/0/index").asInt() == index).toList();
      assertThat(Sse.text(own)).as("choice %d streamed", i).isEqualTo(expected);
      assertThat(own.get(own.size() - 1).at("/choices/0/finish_reason").asText())
          .isEqualTo(reason);
    }
    assertThat(choices.get(0).get("finish_reason").asText()).isEqualTo("stop");
    assertThat(frames.get(frames.size() - 1).at("/usage/completion_tokens").asInt())
        .isEqualTo(Sse.json(whole.body()).at("/usage/completion_tokens").asInt())
        .isLessThan(60);
  }

  @Test
  void roundRobinSplitsEvenlyAndTheRouterPickServes() throws Exception {
    Map<String, Integer> byReplica = new HashMap<>();
    for (int i = 0; i < 100; i++) {
      HttpResponse<String> response = TestNodes.post(ingress, "/v1/chat/completions",
          "{\"messages\":[{\"role\":\"user\",\"content\":\"n" + i + "\"}],\"max_tokens\":2,"
              + "\"stream\":true}");
      String picked = response.headers().firstValue("x-sluice-replica").orElseThrow();
      assertThat(response.headers().firstValue("x-sluice-served-by")).hasValue(picked);
      byReplica.merge(picked, 1, Integer::sum);
    }
    assertThat(byReplica).hasSize(2).allSatisfy((replica, count) -> assertThat(count).isEqualTo(50));
  }

  /**
   * A CompletableFuture step without an executor on one of Pekko's asks runs on a new thread per
   * call on a machine with fewer than 3 cores (Scala's adapter makes every step async, and the
   * JDK's default async pool is then a thread per task): a thread per request, found in the
   * ingress's router ask. A raw client, so that the test's own HTTP client starts none.
   */
  @Test
  void servingARequestStartsNoThread() throws Exception {
    String request = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
        + "Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s";
    String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"t\"}],\"max_tokens\":3,"
        + "\"stream\":true}";
    String bytes = request.formatted(body.length(), body);
    for (int i = 0; i < 20; i++) {  // pools grow to their working size first
      assertThat(RawClient.exchange(ingress, bytes).status()).isEqualTo(200);
    }
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long before = threads.getTotalStartedThreadCount();
    for (int i = 0; i < 100; i++) {
      assertThat(RawClient.exchange(ingress, bytes).status()).isEqualTo(200);
    }
    // A thread per request starts 100; the JVM's own pools (other nodes in this JVM, idle
    // workers retired and replaced) start a few in any 100 requests on a loaded machine (10 seen).
    assertThat(threads.getTotalStartedThreadCount() - before)
        .as("threads started while serving 100 requests").isLessThan(50);
  }

  @Test
  void reusesUpstreamConnectionsAcrossRequests() throws Exception {
    assumeTrue(direct(), "only the direct path opens HTTP connections to replicas");
    long before = 0;
    for (ReplicaInfo replica : replicas()) {
      before += replicaStats(replica).get("accepted_connections").asLong();
    }
    for (int i = 0; i < 100; i++) {
      HttpResponse<String> response = TestNodes.post(ingress, "/v1/chat/completions",
          "{\"messages\":[{\"role\":\"user\",\"content\":\"r\"}],\"max_tokens\":3,"
              + "\"stream\":true}");
      assertThat(response.statusCode()).isEqualTo(200);
    }
    long after = 0;
    for (ReplicaInfo replica : replicas()) {
      after += replicaStats(replica).get("accepted_connections").asLong();
    }
    // Sequential requests: one kept-alive connection per replica suffices (the stats calls
    // themselves add one connection per replica each time).
    assertThat(after - before).isLessThanOrEqualTo(2 + 2);
  }

  @Test
  void clientDisconnectMidStreamFreesTheReplicaSlot() throws Exception {
    try (RawStream stream = RawStream.open(ingress, RawStream.longChat(20000))) {
      assertThat(stream.readFrames(3)).isEqualTo(3);
      assertThat(totalOngoing()).isEqualTo(1);
    }
    Await.until(Duration.ofSeconds(1), "replica ongoing back to 0", () -> totalOngoing() == 0);
  }

  private int totalOngoing() {
    int ongoing = 0;
    try {
      for (ReplicaInfo replica : replicas()) {
        ongoing += replicaStats(replica).get("ongoing").asInt();
      }
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    return ongoing;
  }

  @Test
  void badInputGetsOpenAiErrorsThroughTheIngress() throws Exception {
    assertError(TestNodes.post(ingress, "/v1/chat/completions", "{not json"), 400, null);
    assertError(TestNodes.post(ingress, "/v1/chat/completions", "{\"model\":\"sim\"}"), 400,
        "messages");
    assertError(TestNodes.post(ingress, "/v1/chat/completions",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":-1}"), 400,
        "max_tokens");
    assertError(TestNodes.post(ingress, "/v1/embeddings", "{}"), 404, null);
    assertError(TestNodes.get(ingress, "/nowhere"), 404, null);
    assertError(TestNodes.get(ingress, "/v1/models/nope"), 404, "model");
    Await.until(Duration.ofSeconds(1), "no slot held", () -> totalOngoing() == 0);
  }

  @Test
  void aCompressedBodyIsRefusedWith415NamingTheEncodingsAccepted() throws Exception {
    HttpResponse<String> gzip = TestNodes.post(ingress, "/v1/chat/completions",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", "content-encoding", "gzip");
    assertError(gzip, 415, null);
    assertThat(Sse.json(gzip.body()).at("/error/code").asText())
        .isEqualTo("unsupported_media_type");
    assertThat(Sse.json(gzip.body()).at("/error/message").asText())
        .startsWith("Content-Encoding: gzip (expected: identity");
    assertThat(gzip.headers().firstValue("accept-encoding")).hasValue("identity");
    Await.until(Duration.ofSeconds(1), "no slot held", () -> totalOngoing() == 0);
  }

  private static void assertError(HttpResponse<String> response, int status, String param) {
    assertThat(response.statusCode()).isEqualTo(status);
    JsonNode error = Sse.json(response.body()).get("error");
    assertThat(error.get("message").asText()).isNotBlank();
    assertThat(error.get("type").asText()).isNotBlank();
    assertThat(error.get("code").asText()).isNotBlank();
    if (param != null) {
      assertThat(error.get("param").asText()).isEqualTo(param);
      assertThat(error.get("message").asText()).contains(param);
    }
  }

  @Test
  void listsModelsAndRoutes() throws Exception {
    JsonNode models = Sse.json(TestNodes.get(ingress, "/v1/models").body());
    assertThat(models.at("/data/0/id").asText()).isEqualTo("sim");
    assertThat(Sse.json(TestNodes.get(ingress, "/v1/models/sim").body()).get("id").asText())
        .isEqualTo("sim");
    assertThat(TestNodes.get(ingress, "/-/routes").body()).isEqualTo("{\"/\":\"llm\"}");
    assertThat(TestNodes.get(ingress, "/-/healthz").statusCode()).isEqualTo(200);
  }

  @Test
  void answersHeadAsGetWithoutTheBodyAndNamesTheAllowedMethodsOn405() throws Exception {
    String routes = TestNodes.get(ingress, "/-/routes").body();
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), ingress)) {
      socket.setSoTimeout(15_000);
      socket.getOutputStream().write(RawClient.bytes("HEAD /-/routes HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /-/healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
      InputStream in = new BufferedInputStream(socket.getInputStream());
      assertThat(RawHttp.line(in)).startsWith("HTTP/1.1 200");
      assertThat(RawHttp.fields(in).get("content-length"))
          .isEqualTo(String.valueOf(routes.getBytes(StandardCharsets.UTF_8).length));
      // No body after the HEAD's head: the next bytes are the second answer.
      RawHttp.Response next = RawHttp.response(in);
      assertThat(next.status()).isEqualTo(200);
      assertThat(next.body()).isEqualTo("{\"status\":\"ok\"}");
    }
    RawHttp.Response get = RawClient.exchange(ingress,
        "GET /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(get.status()).isEqualTo(405);
    assertThat(get.header("allow")).isEqualTo("POST");
    RawHttp.Response delete = RawClient.exchange(ingress,
        "DELETE /v1/models HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    assertThat(delete.status()).isEqualTo(405);
    assertThat(delete.header("allow")).isEqualTo("GET, HEAD");
    assertThat(Sse.json(delete.body()).at("/error/code").asText()).isEqualTo("method_not_allowed");
  }

  @Test
  void internalRouteAnswersExactlyHostPortAndReplicaId() throws Exception {
    int router = node.routerPort().orElseThrow();
    HttpResponse<String> routed = TestNodes.post(router, "/internal/route", "");
    assertThat(routed.statusCode()).isEqualTo(200);
    JsonNode json = Sse.json(routed.body());
    List<String> fields = new java.util.ArrayList<>();
    json.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactlyInAnyOrder("host", "port", "replica_id");
    assertThat(replicas()).anySatisfy(r -> {
      assertThat(r.id().toString()).isEqualTo(json.get("replica_id").asText());
      assertThat(r.port()).isEqualTo(json.get("port").asInt());
      assertThat(r.host()).isEqualTo(json.get("host").asText());
    });

    HttpResponse<String> unknownModel = TestNodes.post(router, "/internal/route",
        "{\"model\":\"nope\",\"messages\":[]}");
    assertThat(unknownModel.statusCode()).isEqualTo(503);
    assertThat(Sse.json(unknownModel.body()).get("detail").asText()).contains("nope");
    assertThat(Sse.json(TestNodes.get(router, "/health").body()).get("status").asText())
        .isEqualTo("ok");
    HttpResponse<String> get = TestNodes.get(router, "/internal/route");
    assertThat(get.statusCode()).isEqualTo(405);
    assertThat(get.headers().firstValue("allow")).hasValue("POST");
    assertThat(TestNodes.get(router, "/internal/elsewhere").statusCode()).isEqualTo(404);
  }

  @Test
  void internalRouteChoosesAmongTheReplicasNotExcluded() throws Exception {
    int router = node.routerPort().orElseThrow();
    List<String> ids = replicas().stream().map(r -> r.id().toString()).toList();
    for (String excluded : ids) {
      for (int i = 0; i < 4; i++) {
        HttpResponse<String> routed = TestNodes.post(router, "/internal/route", "",
            "x-sluice-exclude", excluded);
        assertThat(routed.statusCode()).isEqualTo(200);
        assertThat(Sse.json(routed.body()).get("replica_id").asText()).isNotEqualTo(excluded)
            .isIn(ids);
      }
    }
    HttpResponse<String> none = TestNodes.post(router, "/internal/route", "",
        "x-sluice-exclude", String.join(", ", ids));
    assertThat(none.statusCode()).isEqualTo(503);
    assertThat(Sse.json(none.body()).get("detail").asText()).endsWith(
        "all " + ids.size() + " replicas of llm#sim were excluded by the caller");
    HttpResponse<String> tooMany = TestNodes.post(router, "/internal/route", "",
        "x-sluice-exclude", "a,b,c,d,e,f,g,h,i");
    assertThat(tooMany.statusCode()).isEqualTo(400);
    assertThat(Sse.json(tooMany.body()).get("detail").asText())
        .isEqualTo("x-sluice-exclude: 9 replica ids (at most 8)");
  }
}
