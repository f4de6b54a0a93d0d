package dev.sluice.core.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.Sse;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;

class AnswerFramerTest {

  /** A chat of 2 choices, streamed with usage. */
  private static final CompletionRequest CHAT = new CompletionRequest(CompletionRequest.Kind.CHAT,
      "sim", "12345678", 4, true, true, true, 2, List.of("x"), Optional.empty());
  private static final CompletionRequest LEGACY = new CompletionRequest(
      CompletionRequest.Kind.COMPLETION, "sim", "1234", 4, false, false, false);

  @Test
  void aStreamStartsWithARoleFramePerChoiceAndEndsWithTheUsageOfAllChoices() {
    AnswerFramer framer = new AnswerFramer(CHAT, "chatcmpl-1", 7);

    String body = framer.head().utf8String()
        + framer.frames(List.of(AnswerPiece.text(1, "b"), AnswerPiece.text(0, "a"))).utf8String()
        + framer.frame(AnswerPiece.end(0, "stop", 2)).utf8String()
        + framer.frame(AnswerPiece.end(1, "length", 4)).utf8String()
        + framer.tail().utf8String();

    List<JsonNode> frames = Sse.jsonFrames(body);
    assertThat(frames).hasSize(7);
    assertThat(frames.subList(0, 2)).extracting(f -> f.at("/choices/0/index").asInt())
        .containsExactly(0, 1);
    assertThat(frames.get(0).at("/choices/0/delta/role").asText()).isEqualTo("assistant");
    assertThat(frames.get(2).at("/choices/0/delta/content").asText()).isEqualTo("b");
    assertThat(frames.get(2).at("/choices/0/index").asInt()).isEqualTo(1);
    assertThat(frames.get(4).at("/choices/0/finish_reason").asText()).isEqualTo("stop");
    assertThat(frames.get(5).at("/choices/0/finish_reason").asText()).isEqualTo("length");
    assertThat(frames.get(6).get("choices")).isEmpty();
    assertThat(frames.get(6).at("/usage/completion_tokens").asInt()).isEqualTo(6);
    assertThat(frames).allSatisfy(f -> assertThat(f.get("id").asText()).isEqualTo("chatcmpl-1"));
  }

  @Test
  void aStreamsUsageComesAfterEveryFrameHasPassed() throws Exception {
    ActorTestKit kit = ActorTestKit.create(ConfigFactory
        .parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
    try {
      AnswerFramer framer = new AnswerFramer(CHAT, "chatcmpl-1", 7);
      Source<ByteString, NotUsed> frames = Source.from(List.of(AnswerPiece.text(0, "a"),
          AnswerPiece.end(0, "stop", 3), AnswerPiece.end(1, "length", 5))).map(framer::frame);

      String body = framer.stream(frames)
          .runFold("", (text, bytes) -> text + bytes.utf8String(), kit.system())
          .toCompletableFuture().get();

      List<JsonNode> parsed = Sse.jsonFrames(body);
      assertThat(parsed).hasSize(6);
      assertThat(parsed.get(1).at("/choices/0/delta/role").asText()).isEqualTo("assistant");
      assertThat(parsed.get(5).at("/usage/completion_tokens").asInt()).isEqualTo(8);
    } finally {
      kit.shutdownTestKit();
    }
  }

  @Test
  void aCompletionsStreamHasNoRoleFramesAndNoUsageUnlessAsked() {
    AnswerFramer framer = new AnswerFramer(LEGACY, "cmpl-1", 7);

    assertThat(framer.head().isEmpty()).isTrue();
    framer.frame(AnswerPiece.end(0, "length", 4));
    assertThat(framer.tail().utf8String()).isEqualTo("data: [DONE]\n\n");
  }

  @Test
  void aWholeAnswerJoinsEachChoicesTextInIndexOrder() {
    AnswerFramer framer = new AnswerFramer(CHAT, "chatcmpl-1", 7);
    List.of(AnswerPiece.text(1, "wo"), AnswerPiece.text(0, "on"), AnswerPiece.text(1, "rld"),
        AnswerPiece.end(1, "length", 4), AnswerPiece.text(0, "e"), AnswerPiece.end(0, "stop", 2))
        .forEach(framer::add);

    JsonNode whole = Sse.json(framer.whole());

    assertThat(whole.at("/choices/0/message/content").asText()).isEqualTo("one");
    assertThat(whole.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
    assertThat(whole.at("/choices/1/message/content").asText()).isEqualTo("world");
    assertThat(whole.at("/usage/completion_tokens").asInt()).isEqualTo(6);
  }

  @Test
  void aChoiceThatNeverEndedOrIsNotAskedForIsAnError() {
    AnswerFramer framer = new AnswerFramer(CHAT, "chatcmpl-1", 7);
    framer.add(AnswerPiece.end(0, "stop", 1));

    assertThatThrownBy(framer::whole).hasMessageContaining("choice 1");
    assertThatThrownBy(() -> framer.frame(AnswerPiece.text(2, "x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 choice(s)");
  }

  @Test
  void theAnswerIdNamesItsKind() {
    assertThat(AnswerFramer.answerId(CHAT, "r1")).isEqualTo("chatcmpl-r1");
    assertThat(AnswerFramer.answerId(LEGACY, "r1")).isEqualTo("cmpl-r1");
  }
}
