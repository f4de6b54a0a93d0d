package dev.sluice.ingress.splice;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.ingress.edge.HeaderField;
import dev.sluice.core.http.RequestIds;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Any bytes as a client's request head: only {@link MalformedHttpException} may come out; the end
 * of the head is found alike however the bytes arrive; an accepted head holds no byte a replica's
 * parser could read differently, and reads the same once rendered again.
 *
 * <p>Seeds: {@code HeadParserFuzzTestInputs/} beside this class in {@code src/test/resources}.
 */
class HeadParserFuzzTest {

  private static final long MAX_BODY_BYTES = 1 << 20;

  @FuzzTest(maxDuration = "20s")
  void acceptedHeadsAreCleanAndReadTheSameWhenRenderedAgain(byte[] input) {
    Integer end = end(input, input.length);
    assertThat(endFoundInPieces(input, 1)).as("fed byte by byte").isEqualTo(end);
    assertThat(endFoundInPieces(input, 1 + new SplittableRandom(input.length).nextInt(64)))
        .as("fed in pieces").isEqualTo(end);
    if (end == null || end < 0) {
      return;
    }
    RequestHead head = parse(input, end);
    if (head == null) {
      return;
    }
    assertClean(head);

    byte[] rendered = render(head);
    assertThat(end(rendered, rendered.length)).as("end of the rendered head")
        .isEqualTo(rendered.length);
    RequestHead again = parse(rendered, rendered.length);
    assertThat(again).as("the rendered head is refused: %s", ascii(rendered)).isNotNull();
    assertThat(again.request().method()).isEqualTo(head.request().method());
    assertThat(again.request().target()).isEqualTo(head.request().target());
    assertThat(again.request().headers()).isEqualTo(head.request().headers());
    assertThat(again.contentLength()).isEqualTo(head.contentLength());
    assertThat(again.chunked()).isEqualTo(head.chunked());
    assertThat(again.http10()).isEqualTo(head.http10());
    assertThat(again.close()).isEqualTo(head.close());
    assertThat(again.expectsContinue()).isEqualTo(head.expectsContinue());
    if (RequestIds.isSafe(head.request().header(SluiceHeaders.REQUEST_ID))) {
      assertThat(again.request().requestId()).isEqualTo(head.request().requestId());
    }
  }

  /** The end of the head in {@code bytes[0, to)}: an index, -1 (incomplete) or null (refused). */
  private static Integer end(byte[] bytes, int to) {
    try {
      return HttpHead.end(bytes, 0, to);
    } catch (MalformedHttpException e) {
      assertThat(e.getMessage()).isNotBlank();
      return null;
    }
  }

  /** The same, scanning as a connection does: resumed as pieces of {@code piece} bytes arrive. */
  private static Integer endFoundInPieces(byte[] bytes, int piece) {
    int scanned = 0;
    try {
      for (int to = Math.min(piece, bytes.length); ; to = Math.min(to + piece, bytes.length)) {
        int end = HttpHead.end(bytes, scanned, to);
        if (end >= 0 || to == bytes.length) {
          return end;
        }
        scanned = HttpHead.resumeFrom(to);
      }
    } catch (MalformedHttpException e) {
      return null;
    }
  }

  private static RequestHead parse(byte[] bytes, int end) {
    try {
      return RequestHead.parse(bytes, end, MAX_BODY_BYTES);
    } catch (MalformedHttpException e) {
      assertThat(e.getMessage()).isNotBlank();
      return null;
    }
  }

  private static void assertClean(RequestHead head) {
    SpliceRequest request = head.request();
    assertThat(request.method()).isNotEmpty().matches(Tokens::isToken, "a token");
    assertThat(request.target()).startsWith("/");
    assertVisibleAscii("the target", request.target(), false);
    for (HeaderField field : request.headers()) {
      assertThat(field.name()).matches(Tokens::isToken, "a token");
      assertVisibleAscii("header " + field.name(), field.value(), true);
      assertThat(field.value()).doesNotStartWith(" ").doesNotStartWith("\t")
          .doesNotEndWith(" ").doesNotEndWith("\t");
    }
    assertThat(RequestIds.isSafe(request.requestId())).as("request id %s", request.requestId())
        .isTrue();
    assertThat(head.contentLength()).isBetween(0L, MAX_BODY_BYTES);
    if (head.chunked()) {
      assertThat(head.contentLength()).isZero();
      assertThat(head.http10()).isFalse();
    }
  }

  /** No CR, LF, NUL, other control or non-ASCII character; a value may hold SP and HTAB. */
  private static void assertVisibleAscii(String what, String text, boolean value) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean visible = c > 0x20 && c < 0x7f;
      boolean allowed = visible || (value && (c == ' ' || c == '\t'));
      assertThat(allowed).as("%s has character 0x%02x at %d: %s", what, (int) c, i, text)
          .isTrue();
    }
  }

  /** The head as the splice forwards it: request line, the fields, the blank line. */
  private static byte[] render(RequestHead head) {
    StringBuilder text = new StringBuilder();
    text.append(head.request().method()).append(' ').append(head.request().target())
        .append(head.http10() ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
    for (HeaderField field : head.request().headers()) {
      text.append(field.name()).append(": ").append(field.value()).append("\r\n");
    }
    return text.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String ascii(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }
}
