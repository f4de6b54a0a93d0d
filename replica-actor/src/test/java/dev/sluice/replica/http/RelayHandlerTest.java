package dev.sluice.replica.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.config.EngineConfig;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.core.openai.AnswerFramer;
import dev.sluice.core.openai.AnswerPiece;
import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.core.relay.AnswerChunk;
import dev.sluice.core.relay.Generate;
import dev.sluice.core.relay.GenerateReply;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.Sse;
import dev.sluice.replica.engine.SimulatedEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The replica's side of the relayed path: the pieces it streams back, framed as the ingress frames
 * them, give the answer its own endpoint gives, whatever OpenAI fields the request uses.
 */
class RelayHandlerTest {

  private static final ActorTestKit testKit = ActorTestKit.create(ConfigFactory
      .parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
  private static ReplicaHttpHandler handler;

  @BeforeAll
  static void start() {
    handler = new ReplicaHttpHandler(testKit.system(), new ReplicaEndpointSettings(
        "llm#sim#relay001", "sim", 4, 8, 4096, 1 << 20, Duration.ofSeconds(5),
        Duration.ofSeconds(5), Duration.ofSeconds(5)),
        new SimulatedEngine(new EngineConfig("simulated", 0, 0, 8, 4096, 4, 64)));
  }

  @AfterAll
  static void stop() {
    handler.close();
    testKit.shutdownTestKit();
  }

  @AfterEach
  void everySlotIsFreed() {
    Await.until(Duration.ofSeconds(5), "the answer's slot is released",
        () -> handler.slots().ongoing() == 0);
  }

  private static GenerateReply generate(CompletionRequest.Kind kind, String requestId,
      String body) throws Exception {
    return handler.relay().generate(new Generate(requestId, kind,
        body.getBytes(StandardCharsets.UTF_8), Optional.empty(),
        testKit.<GenerateReply>createTestProbe().ref())).toCompletableFuture().get();
  }

  /** The relayed answer's chunks, as the ingress receives them, and the request they answer. */
  private record Relayed(CompletionRequest request, List<AnswerChunk> chunks) {}

  private static Relayed chunks(CompletionRequest.Kind kind, String requestId, String body)
      throws Exception {
    GenerateReply reply = generate(kind, requestId, body);
    assertThat(reply).isInstanceOf(GenerateReply.Streaming.class);
    GenerateReply.Streaming streaming = (GenerateReply.Streaming) reply;
    return new Relayed(streaming.request(), streaming.answer().getSource()
        .runWith(Sink.seq(), testKit.system()).toCompletableFuture().get());
  }

  /** The relayed answer's body, framed as the ingress frames it. */
  private static String relayed(CompletionRequest.Kind kind, String requestId, String body)
      throws Exception {
    return framed(chunks(kind, requestId, body), requestId);
  }

  private static String framed(Relayed relayed, String requestId) {
    AnswerFramer framer = new AnswerFramer(relayed.request(),
        AnswerFramer.answerId(relayed.request(), requestId), System.currentTimeMillis() / 1000);
    if (!relayed.request().stream()) {
      relayed.chunks().forEach(chunk -> chunk.pieces().forEach(framer::add));
      return framer.whole();
    }
    StringBuilder body = new StringBuilder(framer.head().utf8String());
    relayed.chunks().forEach(chunk -> body.append(framer.frames(chunk.pieces()).utf8String()));
    return body.append(framer.tail().utf8String()).toString();
  }

  /** The same request's body from the replica's own endpoint. */
  private static String endpoint(String path, String requestId, String body) throws Exception {
    HttpResponse response = handler.apply(HttpRequest.POST(path)
            .addHeader(RawHeader.create(SluiceHeaders.REQUEST_ID, requestId))
            .withEntity(ContentTypes.APPLICATION_JSON, body))
        .toCompletableFuture().get();
    assertThat(response.status().intValue()).isEqualTo(200);
    return response.entity().toStrict(5_000, testKit.system()).toCompletableFuture().get()
        .getData().utf8String();
  }

  /**
   * An answer in a form that two correct answers to one request share: the {@code created}
   * second zeroed, and a stream's frames grouped by choice (several choices interleave as their
   * tokens come), each choice's frames in their order, the usage frame and {@code [DONE]} last.
   */
  private static List<String> canonical(String answer) {
    String sameSecond = answer.replaceAll("\"created\":\\d+", "\"created\":0");
    if (!sameSecond.startsWith("data: ")) {
      return List.of(sameSecond);
    }
    List<String> payloads = new ArrayList<>(Sse.payloads(sameSecond));
    payloads.sort(Comparator.comparingInt(RelayHandlerTest::choiceOf));
    return payloads;
  }

  /** The choice a frame belongs to; frames of no choice (usage, [DONE]) sort last. */
  private static int choiceOf(String payload) {
    JsonNode choices = payload.equals("[DONE]") ? null : Sse.json(payload).path("choices");
    return choices == null || choices.isEmpty()
        ? Integer.MAX_VALUE : choices.get(0).get("index").asInt();
  }

  /** A stop string that appears in the text of choice 0 of {@code prompt}: its token 3. */
  private static String stopIn(String prompt) {
    return SimulatedEngine.token(prompt, 3).strip();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "{\"prompt\":\"plain\",\"max_tokens\":6}",
      "{\"prompt\":\"plain\",\"max_tokens\":6,\"stream\":true}",
      "{\"prompt\":\"three\",\"max_tokens\":9,\"n\":3,\"seed\":5}",
      "{\"prompt\":\"three\",\"max_tokens\":9,\"n\":3,\"seed\":5,\"stream\":true,"
          + "\"stream_options\":{\"include_usage\":true}}",
      "{\"prompt\":\"stops\",\"max_tokens\":30,\"n\":2,\"stop\":[\"zebra\",\"%STOP%\"]}",
      "{\"prompt\":\"stops\",\"max_tokens\":30,\"n\":2,\"stop\":\"%STOP%\",\"stream\":true,"
          + "\"stream_options\":{\"include_usage\":true}}",
      "{\"messages\":[{\"role\":\"user\",\"content\":\"stops\"}],\"max_tokens\":30,"
          + "\"n\":2,\"stop\":\"%STOP%\"}",
      "{\"messages\":[{\"role\":\"user\",\"content\":\"stops\"}],\"max_tokens\":30,"
          + "\"n\":2,\"stop\":\"%STOP%\",\"stream\":true}"})
  void theRelayedAnswerIsTheEndpointsAnswer(String template) throws Exception {
    String body = template.replace("%STOP%", stopIn("stops"));
    boolean chat = body.startsWith("{\"messages\"");
    CompletionRequest.Kind kind = chat
        ? CompletionRequest.Kind.CHAT : CompletionRequest.Kind.COMPLETION;
    String requestId = "same-" + Integer.toHexString(body.hashCode());

    String relayed = relayed(kind, requestId, body);
    String direct = endpoint(chat ? "/v1/chat/completions" : "/v1/completions", requestId, body);

    assertThat(canonical(relayed)).isEqualTo(canonical(direct));
    assertThat(relayed).contains(requestId);
  }

  @Test
  void aLongAnswerCrossesAsTextInSmallChunksNotAsFrames() throws Exception {
    String body = "{\"prompt\":\"big\",\"max_tokens\":3000,\"n\":2}";

    Relayed relayed = chunks(CompletionRequest.Kind.COMPLETION, "r-big", body);

    assertThat(relayed.chunks()).allSatisfy(chunk -> assertThat(chunk.pieces().stream()
        .mapToInt(piece -> piece.text().length()).sum())
        .isLessThanOrEqualTo(AnswerChunk.MAX_TEXT));
    List<AnswerPiece> ends = relayed.chunks().stream().flatMap(c -> c.pieces().stream())
        .filter(AnswerPiece::isEnd).toList();
    assertThat(ends).extracting(AnswerPiece::choice).containsExactlyInAnyOrder(0, 1);
    assertThat(ends).allSatisfy(end -> assertThat(end.tokens()).isEqualTo(3000));
    assertThat(canonical(framed(relayed, "r-big")))
        .isEqualTo(canonical(endpoint("/v1/completions", "r-big", body)));
  }

  @Test
  void moreChoicesAndStopStringsAreHonouredOnTheRelayedPath() throws Exception {
    String stop = stopIn("stops");
    String answer = relayed(CompletionRequest.Kind.COMPLETION, "r-stops",
        "{\"prompt\":\"stops\",\"max_tokens\":30,\"n\":2,\"stop\":\"" + stop + "\"}");

    JsonNode choices = Sse.json(answer).get("choices");
    assertThat(choices).hasSize(2);
    for (int i = 0; i < 2; i++) {
      String full = SimulatedEngine.text("stops", Optional.empty(), i, 30);
      boolean stopped = full.contains(stop);
      assertThat(choices.get(i).get("index").asInt()).isEqualTo(i);
      assertThat(choices.get(i).get("text").asText())
          .isEqualTo(stopped ? full.substring(0, full.indexOf(stop)) : full);
      assertThat(choices.get(i).get("finish_reason").asText())
          .isEqualTo(stopped ? "stop" : "length");
    }
    assertThat(choices.get(0).get("finish_reason").asText()).isEqualTo("stop");
  }

  @Test
  void aSeedReachesTheEngineOnTheRelayedPath() throws Exception {
    String answer = relayed(CompletionRequest.Kind.COMPLETION, "r-seed",
        "{\"prompt\":\"relayed\",\"max_tokens\":6,\"seed\":3,\"stream\":true}");

    assertThat(Sse.text(Sse.jsonFrames(answer)))
        .isEqualTo(SimulatedEngine.text("relayed", Optional.of(3L), 0, 6));
  }

  @Test
  void aRequestTheEngineCannotServeIsRefusedNamingTheFieldAndHoldsNoSlot() throws Exception {
    GenerateReply reply = generate(CompletionRequest.Kind.COMPLETION, "r-bad",
        "{\"prompt\":\"p\",\"temperature\":3}");

    assertThat(reply).isInstanceOf(GenerateReply.Refused.class);
    GenerateReply.Refused refused = (GenerateReply.Refused) reply;
    assertThat(refused.status()).isEqualTo(400);
    assertThat(Sse.json(refused.errorJson()).at("/error/param").asText())
        .isEqualTo("temperature");
    assertThat(handler.slots().ongoing()).isZero();
  }
}
