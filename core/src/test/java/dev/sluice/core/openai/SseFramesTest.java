package dev.sluice.core.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;

class SseFramesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final CompletionRequest CHAT = new CompletionRequest(CompletionRequest.Kind.CHAT,
      "sim", "12345678", 4, true, true, true, 2, List.of("x"), Optional.empty());
  private static final CompletionRequest LEGACY = new CompletionRequest(
      CompletionRequest.Kind.COMPLETION, "sim", "1234", 4, false, false, false);

  private static JsonNode frame(ByteString frame) throws Exception {
    String text = frame.utf8String();
    assertThat(text).startsWith("data: ").endsWith("\n\n");
    return JSON.readTree(text.substring(6));
  }

  @Test
  void framesNameTheirChoiceIndex() throws Exception {
    SseFrames frames = new SseFrames(CHAT, "chatcmpl-1", 7);

    assertThat(frame(frames.roleFrame(1)).at("/choices/0/index").asInt()).isEqualTo(1);
    JsonNode token = frame(frames.tokenFrame(1, "a\"b"));
    assertThat(token.at("/choices/0/index").asInt()).isEqualTo(1);
    assertThat(token.at("/choices/0/delta/content").asText()).isEqualTo("a\"b");
    JsonNode finish = frame(frames.finishFrame(1, "stop"));
    assertThat(finish.at("/choices/0/index").asInt()).isEqualTo(1);
    assertThat(finish.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
  }

  @Test
  void aCompletionsFramesCarryTextAndEndWithEmptyText() throws Exception {
    SseFrames frames = new SseFrames(LEGACY, "cmpl-1", 7);

    JsonNode token = frame(frames.tokenFrame(0, "w"));
    assertThat(token.get("object").asText()).isEqualTo("text_completion");
    assertThat(token.at("/choices/0/text").asText()).isEqualTo("w");
    JsonNode finish = frame(frames.finishFrame(0, "length"));
    assertThat(finish.at("/choices/0/text").asText()).isEmpty();
    assertThat(finish.at("/choices/0/finish_reason").asText()).isEqualTo("length");
  }

  @Test
  void aWholeAnswerListsItsChoicesInOrderAndSumsTheirTokens() throws Exception {
    SseFrames frames = new SseFrames(CHAT, "chatcmpl-1", 7);

    JsonNode whole = JSON.readTree(frames.fullResponse("chatcmpl-1", 7, List.of(
        new SseFrames.Choice("one", "stop", 2), new SseFrames.Choice("two\n", "length", 4))));

    assertThat(whole.get("object").asText()).isEqualTo("chat.completion");
    assertThat(whole.at("/choices/0/index").asInt()).isZero();
    assertThat(whole.at("/choices/0/message/content").asText()).isEqualTo("one");
    assertThat(whole.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
    assertThat(whole.at("/choices/1/index").asInt()).isEqualTo(1);
    assertThat(whole.at("/choices/1/message/content").asText()).isEqualTo("two\n");
    assertThat(whole.at("/choices/1/finish_reason").asText()).isEqualTo("length");
    assertThat(whole.at("/usage/prompt_tokens").asInt()).isEqualTo(2);
    assertThat(whole.at("/usage/completion_tokens").asInt()).isEqualTo(6);
    assertThat(whole.at("/usage/total_tokens").asInt()).isEqualTo(8);
  }
}
