package dev.sluice.ingress.splice;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the strict edge costs a selector thread per request: finding the end of a typical
 * OpenAI-SDK request head, parsing and checking every byte of it, and rendering the request the
 * replica gets; beside it, the lenient parse the splice did before issue 9 (split on CRLF, no
 * byte checked), measured in the same run. (In the splice's package: the parser is
 * package-private.) Run: {@code ./jmh.sh ingress RequestHeadBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RequestHeadBenchmark {

  private static final String BODY = "{\"model\":\"sluice-sim\",\"messages\":[{\"role\":\"user\","
      + "\"content\":\"Hello!\"}],\"max_tokens\":256,\"stream\":true}";
  private static final byte[] HEAD = ("POST /v1/chat/completions HTTP/1.1\r\n"
      + "Host: 127.0.0.1:8000\r\nAccept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\n"
      + "Accept: application/json\r\nContent-Type: application/json\r\n"
      + "User-Agent: OpenAI/Python 1.54.0\r\nX-Stainless-Lang: python\r\n"
      + "X-Stainless-Package-Version: 1.54.0\r\nX-Stainless-Runtime: CPython\r\n"
      + "Authorization: Bearer sk-no-key\r\nX-Request-Id: 8e07825a-b573-4f6f-90fb-1bb61cd3e645\r\n"
      + "Content-Length: " + BODY.length() + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
  private static final Decision.Forward TARGET = new Decision.Forward("127.0.0.1", 30000,
      "llm#sluice-sim#k3v9x0qa", List.of(), Decision.Lease.NONE);
  private static final byte[] BODY_BYTES = BODY.getBytes(StandardCharsets.UTF_8);

  @Benchmark
  public RequestHead parseHead() throws MalformedHttpException {
    return RequestHead.parse(HEAD, HttpHead.end(HEAD, 0, HEAD.length), 8 << 20);
  }

  @Benchmark
  public byte[] parseHeadAndRenderTheUpstreamRequest() throws MalformedHttpException {
    RequestHead head = RequestHead.parse(HEAD, HttpHead.end(HEAD, 0, HEAD.length), 8 << 20);
    return Exchange.upstreamRequest(head.request().withBody(BODY_BYTES), TARGET);
  }

  /** The head parse before issue 9: the text split on CRLF and at colons, nothing checked. */
  @Benchmark
  public List<String[]> lenientSplitParseBefore() {
    int end = -1;
    for (int i = 3; i < HEAD.length; i++) {
      if (HEAD[i] == '\n' && HEAD[i - 1] == '\r' && HEAD[i - 2] == '\n' && HEAD[i - 3] == '\r') {
        end = i + 1;
        break;
      }
    }
    String text = new String(HEAD, 0, end - 4, StandardCharsets.ISO_8859_1);
    String[] lines = text.split("\r\n", -1);
    List<String[]> fields = new ArrayList<>(lines.length);
    fields.add(lines[0].split(" ", 3));
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      fields.add(new String[] {lines[i].substring(0, colon), lines[i].substring(colon + 1).trim()});
    }
    return fields;
  }
}
