package dev.sluice.ingress.splice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.http.ApiError;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The request head parser is as strict as RFC 9112 lets a recipient be: every input two parsers
 * could read differently is refused before a byte goes anywhere.
 */
class RequestHeadTest {

  private static final String OK = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n";

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** Parses a whole head (end searched as the connection does), or throws. */
  static RequestHead parse(String head) throws MalformedHttpException {
    byte[] data = bytes(head);
    int end = HttpHead.end(data, 0, data.length);
    if (end < 0) {
      throw new AssertionError("head incomplete: " + head);
    }
    return RequestHead.parse(data, end, 1 << 20);
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        Arguments.of("bare LF in a value (critical 1)",
            OK + "X-Inj: a\n\nPOST /v1/chat/completions HTTP/1.1\nHost: b\r\n\r\n", "bare LF"),
        Arguments.of("bare LF ending a line", "GET / HTTP/1.1\nHost: x\r\n\r\n", "bare LF"),
        Arguments.of("bare CR in a value", OK + "X-A: a\rb\r\n\r\n", "bare CR"),
        Arguments.of("LF in a header name", OK + "X-\nA: b\r\n\r\n", "bare LF"),
        Arguments.of("NUL in a value", OK + "X-A: a\0b\r\n\r\n", "0x00"),
        Arguments.of("DEL in a value", OK + "X-A: a\u007fb\r\n\r\n", "0x7f"),
        Arguments.of("vertical tab in a value", OK + "X-A: a\u000bb\r\n\r\n", "0x0b"),
        Arguments.of("lead byte at the end of a value (critical 2)",
            OK + "x-request-id: abc\u00e9\r\nContent-Length: 5\r\n\r\n", "outside ASCII"),
        Arguments.of("4-byte lead at the end of a value", OK + "X-A: abc\u00f0\r\n\r\n",
            "outside ASCII"),
        Arguments.of("obs-fold", OK + "X-A: a\r\n b\r\n\r\n", "folding"),
        Arguments.of("space before the colon", OK + "X-A : b\r\n\r\n", "0x20"),
        Arguments.of("space inside a name", OK + "X A: b\r\n\r\n", "0x20"),
        Arguments.of("parenthesis in a name", OK + "X(A): b\r\n\r\n", "0x28"),
        Arguments.of("no colon", OK + "X-A b\r\n\r\n", "no name or no colon"),
        Arguments.of("empty name", OK + ": b\r\n\r\n", "no name or no colon"),
        Arguments.of("Content-Length +5", OK + "Content-Length: +5\r\n\r\n", "digits only"),
        Arguments.of("Content-Length -0", OK + "Content-Length: -0\r\n\r\n", "digits only"),
        Arguments.of("Content-Length list", OK + "Content-Length: 5, 5\r\n\r\n", "digits only"),
        Arguments.of("Content-Length hex", OK + "Content-Length: 0x5\r\n\r\n", "digits only"),
        Arguments.of("Content-Length empty", OK + "Content-Length:\r\n\r\n", "1 to 18 digits"),
        Arguments.of("Content-Length overflow", OK + "Content-Length: 99999999999999999999\r\n\r\n",
            "1 to 18 digits"),
        Arguments.of("conflicting Content-Length",
            OK + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n", "conflicting"),
        Arguments.of("Transfer-Encoding on two lines",
            OK + "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n",
            "chunked, identity"),
        Arguments.of("Transfer-Encoding gzip, chunked",
            OK + "Transfer-Encoding: gzip, chunked\r\n\r\n", "gzip, chunked"),
        Arguments.of("Transfer-Encoding with Content-Length",
            OK + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", "Content-Length"),
        Arguments.of("Transfer-Encoding xchunked", OK + "Transfer-Encoding: xchunked\r\n\r\n",
            "xchunked"),
        Arguments.of("Transfer-Encoding in HTTP/1.0",
            "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", "HTTP/1.0"),
        Arguments.of("no Host", "GET / HTTP/1.1\r\nX-A: b\r\n\r\n", "Host"),
        Arguments.of("two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "Host"),
        Arguments.of("tab in the request line", "GET\t/ HTTP/1.1\r\nHost: x\r\n\r\n",
            "request line"),
        Arguments.of("two spaces in the request line", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n",
            "request line"),
        Arguments.of("space in the target", "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n",
            "request line"),
        Arguments.of("fragment in the target", "GET /a#b HTTP/1.1\r\nHost: x\r\n\r\n", "0x23"),
        Arguments.of("non-ASCII in the target", "GET /\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n",
            "0xe9"),
        Arguments.of("control in the method", "G\u0001T / HTTP/1.1\r\nHost: x\r\n\r\n",
            "0x01"),
        Arguments.of("lowercase version", "GET / http/1.1\r\nHost: x\r\n\r\n", "version"),
        Arguments.of("version with a space", "GET / HTTP/1.1 \r\nHost: x\r\n\r\n",
            "request line"),
        Arguments.of("asterisk-form", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
            "unsupported request target"),
        Arguments.of("authority-form", "CONNECT a:443 HTTP/1.1\r\nHost: x\r\n\r\n",
            "unsupported request target"),
        Arguments.of("bad percent escape", "GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n",
            "percent escape"),
        Arguments.of("encoded NUL", "GET /%00 HTTP/1.1\r\nHost: x\r\n\r\n", "NUL"),
        Arguments.of("climbing above the root", "GET /../etc HTTP/1.1\r\nHost: x\r\n\r\n",
            "above the root"),
        Arguments.of("Host differing from an absolute target",
            "GET http://a/v1/models HTTP/1.1\r\nHost: b\r\n\r\n", "authority"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  void refusesWhatTwoParsersCouldReadDifferently(String name, String head, String reason) {
    assertThatThrownBy(() -> parse(head))
        .isInstanceOf(MalformedHttpException.class)
        .hasMessageContaining(reason)
        .extracting(e -> ((MalformedHttpException) e).code())
        .isEqualTo(ApiError.Code.INVALID_REQUEST);
  }

  @Test
  void aBareLfIsRefusedBeforeTheHeadEnds() {
    byte[] partial = bytes("GET / HTTP/1.1\r\nX-A: b\nmore");
    assertThatThrownBy(() -> HttpHead.end(partial, 0, partial.length))
        .hasMessageContaining("bare LF");
  }

  @Test
  void theEndIsFoundAcrossResumedScans() throws Exception {
    byte[] head = bytes(OK + "X-A: b\r\n\r\nBODY");
    int scanned = 0;
    int end = -1;
    for (int to = 1; to <= head.length && end < 0; to++) {
      end = HttpHead.end(head, scanned, to);
      scanned = HttpHead.resumeFrom(to);
    }
    assertThat(end).isEqualTo(head.length - 4);
  }

  @Test
  void acceptsAnOrdinaryRequestAndFramesItsBody() throws Exception {
    RequestHead head = parse(OK + "Content-Type: application/json\r\nContent-Length: 12\r\n"
        + "X-Session-Id:  \tuser-1 \r\nConnection: keep-alive, X-Drop\r\n\r\n");

    assertThat(head.request().method()).isEqualTo("POST");
    assertThat(head.request().target()).isEqualTo("/v1/chat/completions");
    assertThat(head.request().header("x-session-id")).isEqualTo("user-1");
    assertThat(head.contentLength()).isEqualTo(12);
    assertThat(head.chunked()).isFalse();
    assertThat(head.close()).isFalse();
  }

  @Test
  void framingVariantsAreRead() throws Exception {
    assertThat(parse(OK + "Transfer-Encoding: Chunked\r\n\r\n").chunked()).isTrue();
    assertThat(parse(OK + "Content-Length: 7\r\nContent-Length: 7\r\n\r\n").contentLength())
        .isEqualTo(7);
    assertThat(parse(OK + "Connection: close\r\n\r\n").close()).isTrue();
    assertThat(parse("GET / HTTP/1.0\r\n\r\n").http10()).isTrue();
    assertThat(parse(OK + "Expect: 100-continue\r\n\r\n").expectsContinue()).isTrue();
  }

  @Test
  void oversizedBodiesAndOtherVersionsGetTheirOwnStatus() {
    assertThatThrownBy(() -> parse(OK + "Content-Length: 2000000\r\n\r\n"))
        .extracting(e -> ((MalformedHttpException) e).code())
        .isEqualTo(ApiError.Code.PAYLOAD_TOO_LARGE);
    assertThatThrownBy(() -> parse("GET / HTTP/2.0\r\nHost: x\r\n\r\n"))
        .extracting(e -> ((MalformedHttpException) e).code())
        .isEqualTo(ApiError.Code.HTTP_VERSION_NOT_SUPPORTED);
  }

  @Test
  void theRequestIdIsKeptOnlyWhenSafe() throws Exception {
    assertThat(parse(OK + "X-Request-Id: run-7:a.b_c\r\n\r\n").request().requestId())
        .isEqualTo("run-7:a.b_c");
    assertThat(parse(OK + "X-Request-Id: a;Set-Cookie=1\r\n\r\n").request().requestId())
        .matches("[0-9a-f-]{36}");
    assertThat(parse(OK + "X-Request-Id: " + "a".repeat(129) + "\r\n\r\n").request()
        .requestId()).matches("[0-9a-f-]{36}");
  }

  @Test
  void targetsAreNormalised() throws Exception {
    assertThat(parse("POST http://ingress:8000/v1/chat/completions?x=1 HTTP/1.1\r\nHost: "
        + "ingress:8000\r\n\r\n").request().target()).isEqualTo("/v1/chat/completions?x=1");
    assertThat(parse("POST /v1/%63hat/completions HTTP/1.1\r\nHost: x\r\n\r\n").request()
        .target()).isEqualTo("/v1/chat/completions");
    assertThat(parse("POST /v1/./x/../chat/completions HTTP/1.1\r\nHost: x\r\n\r\n").request()
        .target()).isEqualTo("/v1/chat/completions");
    assertThat(parse("POST /v1%2fchat/completions HTTP/1.1\r\nHost: x\r\n\r\n").request()
        .target()).isEqualTo("/v1%2Fchat/completions");
    assertThat(parse("GET http://ingress HTTP/1.1\r\nHost: Ingress\r\n\r\n").request().target())
        .isEqualTo("/");
  }
}
