package dev.sluice.bench;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * What workers record while a run goes on, thread-safe and cheap: HdrHistogram recorders (µs)
 * for TTFT, inter-token latency and end-to-end latency, and counters by outcome, replica and
 * session.
 */
final class Measurements {

  final Recorder ttft = new Recorder(3);
  final Recorder itl = new Recorder(3);
  final Recorder e2e = new Recorder(3);
  final LongAdder requests = new LongAdder();
  final LongAdder outputTokens = new LongAdder();
  final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
  final Map<String, LongAdder> replicas = new ConcurrentHashMap<>();
  final Map<String, Set<String>> sessionReplicas = new ConcurrentHashMap<>();

  /**
   * Records one finished exchange. For chat streams the first frame is the role, the last two
   * the finish reason and {@code [DONE]}: token frames are the ones between.
   *
   * @param sentNanos when the request was due (open loop) or sent (closed loop)
   */
  void record(HttpStreamClient.Exchange exchange, long sentNanos, boolean chat, String session) {
    requests.increment();
    String outcome = exchange.status() == 200 ? "200"
        : exchange.status() + (exchange.reason().isEmpty() ? "" : " " + exchange.reason());
    outcomes.computeIfAbsent(outcome, k -> new LongAdder()).increment();
    if (!exchange.replica().isEmpty()) {
      replicas.computeIfAbsent(exchange.replica(), k -> new LongAdder()).increment();
      if (session != null) {
        sessionReplicas.computeIfAbsent(session, k -> ConcurrentHashMap.newKeySet())
            .add(exchange.replica());
      }
    }
    if (exchange.status() != 200) {
      return;
    }
    e2e.recordValue(micros(exchange.endNanos() - sentNanos));
    if (exchange.frames() == 0) {
      // Not streamed: the whole answer is the first token's time too.
      ttft.recordValue(micros(exchange.endNanos() - sentNanos));
      outputTokens.add(Math.max(0, exchange.completionTokens()));
      return;
    }
    int first = chat ? 1 : 0;
    int last = exchange.frames() - 3;
    if (last < first) {
      return;
    }
    long[] times = exchange.frameTimes();
    ttft.recordValue(micros(times[first] - sentNanos));
    for (int f = first + 1; f <= last; f++) {
      itl.recordValue(micros(times[f] - times[f - 1]));
    }
    outputTokens.add(last - first + 1);
  }

  void recordFailure(String what) {
    requests.increment();
    outcomes.computeIfAbsent(what, k -> new LongAdder()).increment();
  }

  private static long micros(long nanos) {
    return Math.max(0, nanos / 1_000);
  }
}
