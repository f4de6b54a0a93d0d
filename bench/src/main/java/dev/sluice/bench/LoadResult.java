package dev.sluice.bench;

import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What one load run measured. Token frames are SSE frames minus the three per chat stream that
 * carry no token (role, finish, {@code [DONE]}).
 *
 * @param ttfbMicros time from sending the request to the first body byte, microseconds
 * @param e2eMicros time from sending the request to the end of the answer, microseconds
 * @param clientCpuNanos CPU the load generator itself used (it shares the machine)
 */
public record LoadResult(
    String target,
    int concurrency,
    double seconds,
    Map<String, Long> outcomes,
    long frames,
    Histogram ttfbMicros,
    Histogram e2eMicros,
    long clientCpuNanos) {

  public long ok() {
    return outcomes.getOrDefault("200", 0L);
  }

  public long tokenFrames() {
    return frames - 3 * ok();
  }

  public double tokensPerSecond() {
    return tokenFrames() / seconds;
  }

  public double requestsPerSecond() {
    return ok() / seconds;
  }

  public double ttfbMillis(double percentile) {
    return ttfbMicros.getValueAtPercentile(percentile) / 1000.0;
  }

  /** Adds another run of the same target (alternating rounds). */
  public LoadResult plus(LoadResult other) {
    Histogram ttfb = ttfbMicros.copy();
    ttfb.add(other.ttfbMicros);
    Histogram e2e = e2eMicros.copy();
    e2e.add(other.e2eMicros);
    Map<String, Long> merged = new java.util.TreeMap<>(outcomes);
    other.outcomes.forEach((k, v) -> merged.merge(k, v, Long::sum));
    return new LoadResult(target, concurrency, seconds + other.seconds, merged,
        frames + other.frames, ttfb, e2e, clientCpuNanos + other.clientCpuNanos);
  }
}
