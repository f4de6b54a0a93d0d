package dev.sluice.ingress.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestTraceTest {

  private static final String CHAT_STREAM = String.join("",
      chunk("data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"),
      chunk("data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n"),
      chunk("data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n"),
      chunk("data: {\"choices\":[{\"delta\":{\"content\":\"\\\"!\"}}]}\n\n"),
      chunk("data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n"),
      chunk("data: {\"choices\":[],\"usage\":{\"completion_tokens\":3}}\n\n"),
      chunk("data: [DONE]\n\n"), "0\r\n\r\n");

  private static String chunk(String data) {
    return Integer.toHexString(data.length()) + "\r\n" + data + "\r\n";
  }

  private static RequestTrace streamed() {
    RequestTrace trace = new RequestTrace("r1", "/v1/chat/completions", System.nanoTime());
    trace.head(200, null, true);
    return trace;
  }

  @Test
  void countsTheChunksThatCarryTextNotTheRoleFinishUsageOrDone() {
    RequestTrace trace = streamed();
    byte[] body = CHAT_STREAM.getBytes(StandardCharsets.UTF_8);
    trace.body(body, 0, body.length);
    assertThat(trace.tokens()).isEqualTo(3);
    assertThat(trace.bytes()).isEqualTo(body.length);
  }

  @Test
  void countsTheSameWhateverWayTheBytesAreCut() {
    byte[] body = CHAT_STREAM.getBytes(StandardCharsets.UTF_8);
    for (int size = 1; size <= 17; size++) {
      RequestTrace trace = streamed();
      for (int at = 0; at < body.length; at += size) {
        trace.body(body, at, Math.min(size, body.length - at));
      }
      assertThat(trace.tokens()).as("pieces of %d bytes", size).isEqualTo(3);
    }
  }

  @Test
  void countsTheSameWhereverOneReadEndsAndTheNextBegins() {
    byte[] body = CHAT_STREAM.getBytes(StandardCharsets.UTF_8);
    for (int cut = 0; cut <= body.length; cut++) {
      RequestTrace trace = streamed();
      trace.body(body, 0, cut);
      trace.body(body, cut, body.length - cut);
      assertThat(trace.tokens()).as("cut at %d", cut).isEqualTo(3);
    }
  }

  @Test
  void aReasoningFieldOrAQuotedKeyInsideTextIsNotAToken() {
    RequestTrace trace = streamed();
    byte[] body = ("data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\n"
        + "data: {\"choices\":[{\"delta\":{\"content\":\"say \\\"content\\\":\\\"x\"}}]}\n\n")
        .getBytes(StandardCharsets.UTF_8);
    trace.body(body, 0, body.length);
    assertThat(trace.tokens()).isEqualTo(1);
  }

  @Test
  void countsCompletionTextChunksAndAnUnframedStream() {
    RequestTrace trace = streamed();
    byte[] body = ("data: {\"choices\":[{\"text\":\"a\"}]}\n\n"
        + "data: {\"choices\":[{\"text\":\"b\"}]}"
        + "\n\ndata: {\"choices\":[{\"text\":\"\",\"finish_reason\":\"stop\"}]}\n\n"
        + "data: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
    trace.body(body, 0, body.length);
    assertThat(trace.tokens()).isEqualTo(2);
  }

  @Test
  void aWholeJsonAnswerHasBytesButNoStreamedTokens() {
    RequestTrace trace = new RequestTrace("r2", "/v1/chat/completions", System.nanoTime());
    trace.head(200, null, false);
    byte[] body = "{\"choices\":[{\"message\":{\"content\":\"hello\"}}]}"
        .getBytes(StandardCharsets.UTF_8);
    trace.body(body, 0, body.length);
    assertThat(trace.tokens()).isZero();
    assertThat(trace.bytes()).isEqualTo(body.length);
  }

  @Test
  void theFirstTokenIsTheFirstChunkWithTextNotTheRoleChunk() {
    RequestTrace trace = streamed();
    byte[] role = chunk("data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n")
        .getBytes(StandardCharsets.UTF_8);
    trace.body(role, 0, role.length);
    assertThat(trace.firstByteNanos).isPositive();
    assertThat(trace.firstTokenAt()).isEqualTo(-1);
    byte[] token = chunk("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
        .getBytes(StandardCharsets.UTF_8);
    trace.body(token, 0, token.length);
    assertThat(trace.firstTokenAt()).isGreaterThanOrEqualTo(trace.firstByteNanos);

    RequestTrace whole = new RequestTrace("w", "/v1/chat/completions", System.nanoTime());
    whole.head(200, null, false);
    whole.body(role, 0, role.length);
    assertThat(whole.firstTokenAt()).isEqualTo(whole.firstByteNanos).isPositive();
  }

  @Test
  void endsOnce() {
    RequestTrace trace = streamed();
    assertThat(trace.end()).isTrue();
    assertThat(trace.end()).isFalse();
  }
}
