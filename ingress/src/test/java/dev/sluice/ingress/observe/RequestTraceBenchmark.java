package dev.sluice.ingress.observe;

import java.nio.charset.StandardCharsets;
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
 * What observing a streamed answer costs the selector thread per read: the bytes of 32 chat
 * chunks (one token each, as the simulated engine and vLLM frame them, chunked encoding included)
 * handed to {@link RequestTrace#body}, with the token count (a streamed answer) and without it (a
 * whole answer: bytes only). Divide by 32 for the cost per token. Run:
 * {@code ./jmh.sh ingress RequestTraceBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RequestTraceBenchmark {

  static final int TOKENS = 32;
  private static final byte[] READ = read();

  private static byte[] read() {
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < TOKENS; i++) {
      String event = "data: {\"id\":\"chatcmpl-8e07825a-b573-4f6f-90fb-1bb61cd3e645\",\"object\":"
          + "\"chat.completion.chunk\",\"created\":1764567890,\"model\":\"sluice-sim\",\"choices\":"
          + "[{\"index\":0,\"delta\":{\"content\":\"tok" + i + " \"},\"logprobs\":null,"
          + "\"finish_reason\":null}]}\n\n";
      body.append(Integer.toHexString(event.length())).append("\r\n").append(event)
          .append("\r\n");
    }
    return body.toString().getBytes(StandardCharsets.UTF_8);
  }

  private RequestTrace streamed() {
    RequestTrace trace = new RequestTrace("r", "/v1/chat/completions", 0);
    trace.head(200, null, true);
    return trace;
  }

  @Benchmark
  public long countTokens() {
    RequestTrace trace = streamed();
    trace.body(READ, 0, READ.length);
    return trace.tokens();
  }

  @Benchmark
  public long bytesOnly() {
    RequestTrace trace = new RequestTrace("r", "/v1/chat/completions", 0);
    trace.head(200, null, false);
    trace.body(READ, 0, READ.length);
    return trace.bytes();
  }
}
