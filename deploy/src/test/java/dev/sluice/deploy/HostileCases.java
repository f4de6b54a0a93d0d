package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.testing.RawHttp;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The hostile-input table: every class of input the edge audit found (request line, line ends,
 * control and non-ASCII bytes, field names, Content-Length, Transfer-Encoding, chunked framing,
 * Host, sizes, targets, pipelining, request ids), and the valid variants that must still work.
 * Each case says what the client sent, the status of its first answer, how many answers it
 * gets, and how many messages may reach a replica (never more than the client sent).
 */
final class HostileCases {

  /**
   * One input.
   *
   * @param answers final answers the client reads (pipelined requests get several)
   * @param forwarded messages the replicas must receive for it, exactly
   */
  record Case(String name, byte[] request, int status, int answers, int forwarded,
      Consumer<RawHttp.Response> check) {
    @Override
    public String toString() {
      return name;
    }
  }

  static final String BODY =
      "{\"messages\":[{\"role\":\"user\",\"content\":\"hostile\"}],\"max_tokens\":2}";
  private static final String POST = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n";
  private static final Consumer<RawHttp.Response> NONE = response -> { };

  private final List<Case> cases = new ArrayList<>();

  private HostileCases() {}

  static List<Case> all(long maxBodyBytes) {
    HostileCases table = new HostileCases();
    table.valid();
    table.local();
    table.requestLines();
    table.lineEnds();
    table.controls();
    table.nonAscii();
    table.names();
    table.contentLengths(maxBodyBytes);
    table.transferEncodings();
    table.chunkedBodies();
    table.hosts();
    return List.copyOf(table.cases);
  }

  private void add(String name, String request, int status, int answers, int forwarded,
      Consumer<RawHttp.Response> check) {
    cases.add(new Case(name, request.getBytes(StandardCharsets.ISO_8859_1), status, answers,
        forwarded, check));
  }

  private void refused(String name, String request, int status) {
    add(name, request, status, 1, 0, response -> {
      assertThat(response.header("connection")).as("closed after a refusal").isEqualTo("close");
      assertThat(response.body()).contains("\"error\"");
    });
  }

  private void refused(String name, String request) {
    refused(name, request, 400);
  }

  private void served(String name, String request) {
    add(name, request, 200, 1, 1, NONE);
  }

  /** A completion with extra head lines and the standard body. */
  private static String completion(String... lines) {
    StringBuilder head = new StringBuilder(POST);
    for (String line : lines) {
      head.append(line).append("\r\n");
    }
    return head.append("Content-Length: ").append(BODY.length()).append("\r\n\r\n").append(BODY)
        .toString();
  }

  private static String chunked(String framing) {
    return POST + "Transfer-Encoding: chunked\r\n\r\n" + framing;
  }

  private static String chunks(String data) {
    return Integer.toHexString(data.length()) + "\r\n" + data + "\r\n";
  }

  private void valid() {
    served("plain completion", completion());
    String legacy = "{\"prompt\":\"hi\",\"max_tokens\":2}";
    served("legacy completion", "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: "
        + legacy.length() + "\r\n\r\n" + legacy);
    served("absolute-form target", completion().replace("POST /v1/chat/completions",
        "POST http://ingress.example:8000/v1/chat/completions").replace("Host: x",
        "Host: ingress.example:8000"));
    served("percent-encoded unreserved characters", completion().replace("/v1/chat/",
        "/v1/%63h%61t/"));
    served("dot segments", completion().replace("/v1/chat/", "/v1/x/../chat/./"));
    served("chunked body", chunked(chunks(BODY.substring(0, 10)) + chunks(BODY.substring(10))
        + "0\r\n\r\n"));
    served("chunked with an extension", chunked(Integer.toHexString(BODY.length())
        + ";name=value\r\n" + BODY + "\r\n0\r\n\r\n"));
    served("chunked with trailers", chunked(chunks(BODY) + "0\r\nx-trailer: 1\r\n\r\n"));
    served("Transfer-Encoding in capitals", completion().replace("Content-Length: "
        + BODY.length(), "Transfer-Encoding: CHUNKED").replace("\r\n\r\n" + BODY,
        "\r\n\r\n" + chunks(BODY) + "0\r\n\r\n"));
    served("Content-Length with leading zeros", completion().replace("Content-Length: ",
        "Content-Length: 000"));
    served("the same Content-Length twice", completion("Content-Length: " + BODY.length()));
    served("Content-Length with surrounding spaces", completion().replace("Content-Length: "
        + BODY.length(), "Content-Length: \t " + BODY.length() + " \t"));
    served("leading empty lines", "\r\n\r\n" + completion());
    served("a tab inside a value", completion("X-Note: a\tb"));
    served("a session header", completion("X-Session-Id: user-7"));
    add("Expect: 100-continue", completion("Expect: 100-continue"), 200, 1, 1, NONE);
    add("a safe request id is echoed", completion("X-Request-Id: run-1:a.b_c"), 200, 1, 1,
        response -> assertThat(response.header("x-request-id")).isEqualTo("run-1:a.b_c"));
    add("an unsafe request id is replaced", completion("X-Request-Id: a;Set-Cookie=x"), 200, 1,
        1, response -> assertThat(response.header("x-request-id")).matches("[0-9a-f-]{36}"));
    add("an overlong request id is replaced", completion("X-Request-Id: " + "r".repeat(200)),
        200, 1, 1,
        response -> assertThat(response.header("x-request-id")).matches("[0-9a-f-]{36}"));
    add("Connection: close", completion("Connection: close"), 200, 1, 1,
        response -> assertThat(response.header("connection")).isEqualTo("close"));
    add("two pipelined completions", completion() + completion(), 200, 2, 2, NONE);
    add("a completion, then garbage", completion() + "GARBAGE\r\n\r\n", 200, 2, 1, NONE);
    served("Transfer-Encoding with spaces", completion().replace("Content-Length: "
        + BODY.length(), "Transfer-Encoding:  chunked ").replace("\r\n\r\n" + BODY,
        "\r\n\r\n" + chunks(BODY) + "0\r\n\r\n"));
  }

  private void local() {
    add("model list", "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", 200, 1, 0, NONE);
    add("one model", "GET /v1/models/sim HTTP/1.1\r\nHost: x\r\n\r\n", 200, 1, 0, NONE);
    add("health", "GET /-/healthz HTTP/1.1\r\nHost: x\r\n\r\n", 200, 1, 0, NONE);
    add("health over HTTP/1.0", "GET /-/healthz HTTP/1.0\r\n\r\n", 200, 1, 0, NONE);
    add("unknown path", "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", 404, 1, 0, NONE);
    add("unknown model", "GET /v1/models/nope HTTP/1.1\r\nHost: x\r\n\r\n", 404, 1, 0, NONE);
    add("GET on a completion route", "GET /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n",
        405, 1, 0, NONE);
    add("an encoded slash is not a route", completion().replace("/v1/chat/completions",
        "/v1%2Fchat/completions"), 404, 1, 0, NONE);
    add("a completion over HTTP/1.0", completion().replace("HTTP/1.1", "HTTP/1.0"), 505, 1, 0,
        NONE);
    add("a HEAD request", "HEAD /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", 200, 1, 0,
        response -> assertThat(response.header("content-length")).isNotEqualTo("0"));
    add("HEAD on a completion route", "HEAD /v1/completions HTTP/1.1\r\nHost: x\r\n\r\n", 405,
        1, 0, response -> assertThat(response.header("allow")).isEqualTo("POST"));
  }

  private void requestLines() {
    refused("HTTP/2.0", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505);
    refused("HTTP/1.2", "GET / HTTP/1.2\r\nHost: x\r\n\r\n", 505);
    refused("lowercase version", "GET / http/1.1\r\nHost: x\r\n\r\n");
    refused("no version", "GET /\r\nHost: x\r\n\r\n");
    refused("two spaces", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("tab separators", "GET\t/\tHTTP/1.1\r\nHost: x\r\n\r\n");
    refused("space in the target", "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("trailing space", "GET / HTTP/1.1 \r\nHost: x\r\n\r\n");
    refused("empty method", " / HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("control in the method", "PO\u0001ST / HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("fragment in the target", "GET /v1/models#x HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("non-ASCII target", "GET /v1/mod\u00e9ls HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("quote in the target", "GET /v1/\"models HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("asterisk-form", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("authority-form", "CONNECT replica:30000 HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("ftp absolute-form", "GET ftp://x/v1/models HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("Host differing from an absolute target", completion().replace(
        "POST /v1/chat/completions", "POST http://other.example/v1/chat/completions"));
    refused("malformed percent escape", "GET /v1/%zzmodels HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("cut percent escape", "GET /v1/models% HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("encoded NUL", "GET /v1/models%00 HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("climbing above the root", "GET /../v1/models HTTP/1.1\r\nHost: x\r\n\r\n");
  }

  private void lineEnds() {
    String smuggled = "POST /v1/chat/completions HTTP/1.1\nHost: b\nContent-Length: "
        + BODY.length() + "\n\n" + BODY;
    refused("bare LF smuggling a request (critical 1)",
        completion("X-Inj: a\n\n" + smuggled + "\nX-Tail: z"));
    refused("bare LF ending the request line", completion().replace("HTTP/1.1\r\n",
        "HTTP/1.1\n"));
    refused("bare LF ending a field", completion("X-A: b\nX-B: c"));
    refused("bare LF ending the head", POST + "Content-Length: 0\n\n");
    refused("bare CR inside a value", completion("X-A: b\rX-B: c"));
    refused("CR CR LF", completion("X-A: b\r"));
    refused("LF inside a name", completion("X-\nA: b"));
    refused("LF inside the target", "GET /v1/\nmodels HTTP/1.1\r\nHost: x\r\n\r\n");
    refused("obs-fold", completion("X-A: b", " folded"));
    refused("obs-fold with a tab", completion("X-A: b", "\tfolded"));
  }

  private void controls() {
    for (int c = 0; c < 0x20; c++) {
      if (c == '\t' || c == '\r' || c == '\n') {
        continue;
      }
      refused(String.format("control 0x%02x in a value", c),
          completion("X-A: a" + (char) c + "b"));
    }
    refused("DEL in a value", completion("X-A: a\u007fb"));
    refused("vertical tab at the end of a value", completion("X-A: ab\u000b"));
  }

  private void nonAscii() {
    String smuggled = "POST /v1/chat/completions HTTP/1.1\r\nHost: b\r\nContent-Length: "
        + BODY.length() + "\r\n\r\n" + BODY;
    refused("lead byte ending the request id (critical 2)", POST + "x-request-id: abc\u00e9\r\n"
        + "Content-Length: " + smuggled.length() + "\r\n\r\n" + smuggled);
    for (int b : new int[] {0x80, 0xbf, 0xc3, 0xdf, 0xe0, 0xef, 0xf0, 0xf7, 0xf8, 0xff}) {
      refused(String.format("byte 0x%02x ending a value", b),
          completion("X-A: abc" + (char) b));
    }
    refused("valid UTF-8 in a value (refused, not forwarded)", completion("X-Name: caf\u00c3\u00a9"));
    refused("non-ASCII in a name", completion("X-\u00e9: b"));
  }

  private void names() {
    refused("space before the colon", completion("X-A : b"));
    refused("space inside a name", completion("X A: b"));
    refused("parenthesis in a name", completion("X(A): b"));
    refused("at sign in a name", completion("X@A: b"));
    refused("slash in a name", completion("X/A: b"));
    refused("empty name", completion(": b"));
    refused("no colon", completion("X-A b"));
    refused("header line of only spaces", completion("   "));
  }

  private void contentLengths(long maxBodyBytes) {
    String length = "Content-Length: " + BODY.length();
    refused("Content-Length +N", completion().replace(length, "Content-Length: +"
        + BODY.length()));
    refused("Content-Length -0", POST + "Content-Length: -0\r\n\r\n");
    refused("Content-Length with an inner space", completion().replace(length,
        "Content-Length: 1 " + BODY.length()));
    refused("Content-Length in hex", POST + "Content-Length: 0x10\r\n\r\n");
    refused("Content-Length list", completion().replace(length, length + ", " + BODY.length()));
    refused("conflicting Content-Length", completion("Content-Length: " + (BODY.length() + 1)));
    refused("empty Content-Length", POST + "Content-Length:\r\n\r\n");
    refused("20-digit Content-Length", POST + "Content-Length: 18446744073709551621\r\n\r\n");
    refused("Content-Length with a letter", POST + "Content-Length: 5a\r\n\r\n");
    refused("Content-Length over the limit", POST + "Content-Length: " + (maxBodyBytes + 1)
        + "\r\n\r\n", 413);
  }

  private void transferEncodings() {
    refused("a gzip-encoded body", completion("Content-Encoding: gzip"), 415);
    refused("Content-Encoding identity, then gzip",
        completion("Content-Encoding: identity", "Content-Encoding: gzip"), 415);
    served("Content-Encoding identity", completion("Content-Encoding: identity"));
    refused("chunked twice", chunked("0\r\n\r\n").replace("chunked\r\n",
        "chunked, chunked\r\n"));
    refused("gzip, chunked", chunked("0\r\n\r\n").replace("chunked\r\n", "gzip, chunked\r\n"));
    refused("identity", chunked("0\r\n\r\n").replace("chunked\r\n", "identity\r\n"));
    refused("Transfer-Encoding on two lines",
        chunked("0\r\n\r\n").replace("chunked\r\n", "chunked\r\nTransfer-Encoding: identity\r\n"));
    refused("Transfer-Encoding and Content-Length", chunked("0\r\n\r\n")
        .replace("chunked\r\n", "chunked\r\nContent-Length: 5\r\n"));
    refused("xchunked", chunked("0\r\n\r\n").replace("chunked\r\n", "xchunked\r\n"));
    refused("empty Transfer-Encoding", chunked("0\r\n\r\n").replace(" chunked\r\n", "\r\n"));
    refused("Transfer-Encoding in HTTP/1.0", chunked("0\r\n\r\n").replace("HTTP/1.1",
        "HTTP/1.0"));
  }

  private void chunkedBodies() {
    refused("chunk size not hex", chunked("zz\r\n"));
    refused("negative chunk size", chunked("-1\r\n"));
    refused("chunk size 0x-prefixed", chunked("0x5\r\nhello\r\n0\r\n\r\n"));
    refused("chunk size overflow", chunked("1000000000000000\r\n"));
    refused("2 KiB chunk extension", chunked("5;" + "e".repeat(2048) + "\r\nhello\r\n"));
    refused("control in a chunk extension", chunked("5;a\u0001b\r\nhello\r\n"));
    refused("bare LF after a chunk size", chunked("5\nhello\r\n0\r\n\r\n"));
    refused("no CRLF after chunk data", chunked("5\r\nhelloX\r\n0\r\n\r\n"));
    refused("bare LF in a trailer", chunked(chunks(BODY) + "0\r\nx-t: 1\nx-u: 2\r\n\r\n"));
    refused("lead byte in a trailer", chunked(chunks(BODY) + "0\r\nx-t: ab\u00e0\r\n\r\n"));
    refused("control byte in a trailer", chunked(chunks(BODY) + "0\r\nx-t: a\u0001b\r\n\r\n"));
    refused("20 KiB of trailers", chunked(chunks(BODY) + "0\r\nx-t: " + "t".repeat(20_000)
        + "\r\n\r\n"));
    refused("chunk size with a space inside", chunked("5 5\r\n"));
  }

  private void hosts() {
    refused("no Host", "GET /v1/models HTTP/1.1\r\n\r\n");
    refused("two Host lines", "GET /v1/models HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
    refused("Host list", "GET /v1/models HTTP/1.1\r\nHost: a, b\r\n\r\n");
    refused("head over the limit", "GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: "
        + "b".repeat(20_000) + "\r\n\r\n", 431);
  }
}
