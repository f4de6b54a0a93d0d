package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.Sse;
import dev.sluice.deploy.haproxy.HaproxyBinary;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every hostile input of {@link HostileCases} through the HAProxy data plane a node runs
 * ({@code sluice.haproxy.port}), with the invariants of {@link HostileInputIT}: every concurrent
 * victim gets its own answer, exactly the expected messages reach the replicas, no 5xx, and no
 * slot or lease is left behind. HAProxy parses requests itself, more leniently than the ingress;
 * what it takes, it forwards in its own framing (CRLF line ends, unfolded values, one
 * Content-Length). Where its answer differs from the ingress's, {@link #DIFFERENCES} says what
 * it is and why. Every refusal is in the OpenAI shape, except the HTML page HAProxy before 3.3
 * sends for a request it cannot parse.
 */
class HaproxyHostileInputIT extends HostileSuite {

  private static final int HAPROXY_PORT = 19205;

  /**
   * What HAProxy answers where it differs from the ingress: the first answer's status, messages
   * forwarded, and the answers the client reads (-1: as many as from the ingress).
   */
  private record Expected(int status, int forwarded, int answers, String why) {
    Expected(int status, int forwarded, String why) {
      this(status, forwarded, -1, why);
    }
  }

  private static final String RAW_PATH = "routes match the raw path (not normalised): not found";
  private static final String LENIENT = "HAProxy's parser takes it; not a route: not found";
  private static final String BARE_LF = "HAProxy reads a bare LF as a line end (RFC 9112 "
      + "allows it) and forwards CRLF";
  private static final Map<String, Expected> DIFFERENCES = Map.ofEntries(
      Map.entry("percent-encoded unreserved characters", new Expected(404, 0, RAW_PATH)),
      Map.entry("dot segments", new Expected(404, 0, RAW_PATH)),
      Map.entry("a completion over HTTP/1.0", new Expected(200, 1,
          "HAProxy answers HTTP/1.0 itself (the splice streams chunked)")),
      Map.entry("HTTP/2.0", new Expected(404, 0, LENIENT)),
      Map.entry("HTTP/1.2", new Expected(404, 0, LENIENT)),
      Map.entry("two spaces", new Expected(404, 0, LENIENT)),
      Map.entry("tab separators", new Expected(404, 0, LENIENT)),
      Map.entry("quote in the target", new Expected(404, 0, LENIENT)),
      Map.entry("asterisk-form", new Expected(404, 0, LENIENT)),
      Map.entry("malformed percent escape", new Expected(404, 0, LENIENT)),
      Map.entry("cut percent escape", new Expected(404, 0, LENIENT)),
      Map.entry("encoded NUL", new Expected(404, 0, LENIENT)),
      Map.entry("climbing above the root", new Expected(404, 0, LENIENT)),
      Map.entry("ftp absolute-form", new Expected(200, 0,
          "HAProxy takes the path of any absolute-form: the model list, answered by HAProxy")),
      Map.entry("bare LF smuggling a request (critical 1)", new Expected(400, 2, 2, BARE_LF
          + ": two requests, both answered to this client in order (an empty-bodied POST "
          + "first: the replica's 400); read both, or the second may not be sent")),
      Map.entry("bare LF ending the request line", new Expected(200, 1, BARE_LF)),
      Map.entry("bare LF ending a field", new Expected(200, 1, BARE_LF)),
      Map.entry("bare LF ending the head", new Expected(400, 1, BARE_LF
          + ": an empty body, the replica's 400")),
      Map.entry("obs-fold", new Expected(200, 1, "HAProxy unfolds it (RFC 9112)")),
      Map.entry("obs-fold with a tab", new Expected(200, 1, "HAProxy unfolds it (RFC 9112)")),
      Map.entry("header line of only spaces", new Expected(200, 1,
          "HAProxy takes it as a continuation and unfolds it")),
      Map.entry("Content-Length list", new Expected(200, 1,
          "HAProxy merges identical values (RFC 9110)")),
      Map.entry("Content-Length over the limit", new Expected(408, 0,
          "HAProxy waits for the announced body a replica would read on, then times out")),
      Map.entry("a gzip-encoded body", new Expected(415, 1, "the replica's endpoint's 415")),
      Map.entry("Content-Encoding identity, then gzip", new Expected(415, 1,
          "the replica's endpoint's 415")),
      Map.entry("gzip, chunked", new Expected(422, 0, "HAProxy's answer to a coding it lacks")),
      Map.entry("Transfer-Encoding and Content-Length", new Expected(400, 1,
          "HAProxy drops the Content-Length (RFC 9112): an empty chunked body, the replica's 400")),
      Map.entry("2 KiB chunk extension", new Expected(408, 0,
          "HAProxy takes the extension and waits for the rest of the body")),
      Map.entry("control in a chunk extension", new Expected(408, 0,
          "HAProxy takes the extension and waits for the rest of the body")),
      Map.entry("bare LF after a chunk size", new Expected(400, 1, BARE_LF
          + ": the body 'hello', the replica's 400")),
      Map.entry("bare LF in a trailer", new Expected(200, 1, BARE_LF)),
      Map.entry("no Host", new Expected(200, 0, "the model list, answered by HAProxy")),
      Map.entry("Host list", new Expected(200, 0, "the model list, answered by HAProxy")),
      Map.entry("head over the limit", new Expected(400, 0, "over HAProxy's buffer")));

  private boolean errorFilesForUnparsable;

  @Override
  String nodeSettings() {
    return "sluice.haproxy.port = " + HAPROXY_PORT;
  }

  @Override
  int port(SluiceNode node) {
    return HAPROXY_PORT;
  }

  @BeforeAll
  void haproxyVersion() {
    String[] version = HaproxyBinary.locate("haproxy").version().split("[.-]");
    int major = Integer.parseInt(version[0]);
    errorFilesForUnparsable = major > 3 || (major == 3 && Integer.parseInt(version[1]) >= 3);
  }

  @Test
  void everyDifferenceNamesACaseOfTheTable() {
    assertThat(cases().map(HostileCases.Case::name)).containsAll(DIFFERENCES.keySet());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void holdsTheInvariants(HostileCases.Case hostile) throws Exception {
    Expected expected = DIFFERENCES.getOrDefault(hostile.name(),
        new Expected(hostile.status(), hostile.forwarded(), "as the ingress"));
    int answers = expected.answers() < 0 ? hostile.answers() : expected.answers();

    HostileRun.Result result = run.send(hostile, answers);

    assertThat(result.answers()).as("answers").hasSize(answers);
    RawHttp.Response first = result.answers().get(0);
    assertThat(first.status()).as("status (%s)", expected.why()).isEqualTo(expected.status());
    if (expected.status() < 300 && hostile.status() < 300) {
      // What the ingress checks of the answers it serves (not of those it refuses).
      hostile.check().accept(first);
    }
    for (RawHttp.Response answer : result.answers()) {
      assertThat(answer.status()).as("no 5xx").isLessThan(500);
      if (answer.status() >= 400 && !answer.body().isEmpty()) {
        assertOpenAiShape(answer);
      }
    }
    assertThat(result.forwarded()).as("messages that reached the replicas (%s)", expected.why())
        .isEqualTo(expected.forwarded());
  }

  private void assertOpenAiShape(RawHttp.Response answer) {
    if ("text/html".equals(answer.header("content-type")) && !errorFilesForUnparsable) {
      // HAProxy before 3.3 answers a request it cannot parse with its built-in page.
      assertThat(answer.status()).isIn(400, 422);
      return;
    }
    assertThat(answer.header("content-type")).isEqualTo("application/json");
    assertThat(Sse.json(answer.body()).at("/error/message").asText()).isNotEmpty();
  }
}
