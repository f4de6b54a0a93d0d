package dev.sluice.replica;

import dev.sluice.replica.engine.TtftHistogram;
import java.util.List;
import java.util.function.DoubleConsumer;

/**
 * An external engine's own time-to-first-token histogram fed into the replica's
 * ({@code sluice_replica_ttft_seconds}): the splice and HAProxy send completions to the engine's
 * port, so the replica's endpoint never sees them. A histogram cannot take another's buckets
 * when their bounds differ: each request new since the last scrape is observed at a point of its
 * engine bucket, the n of one bucket spread evenly over it (what a quantile from the engine's
 * own buckets assumes too), those above the last finite bound just above it. Quantiles are as
 * fine as the engine's buckets, no finer. Confined to the replica actor, except {@link #active}.
 */
final class EngineTtftFeed {

  /** Observations one feed makes at most (a load tick's worth at any real request rate). */
  static final int MAX_PER_FEED = 100_000;

  private List<Double> bounds = List.of();
  private List<Long> seen = List.of();
  private volatile boolean active;

  /**
   * Whether the engine has reported a histogram of its own: it then counts every request,
   * those the replica's endpoint relays too, and the endpoint's own observations are left out.
   */
  boolean active() {
    return active;
  }

  /** Observes the requests {@code now} counts beyond the previous feed. */
  void feed(TtftHistogram now, DoubleConsumer observe) {
    if (now.isEmpty()) {
      return;
    }
    active = true;
    if (!now.upperBounds().equals(bounds) || now.count() < count(seen)) {
      // First histogram, or the engine's counts started again: all of it is new.
      bounds = now.upperBounds();
      seen = bounds.stream().map(bound -> 0L).toList();
    }
    int budget = MAX_PER_FEED;
    for (int i = 0; i < bounds.size() && budget > 0; i++) {
      long fresh = bucket(now.cumulativeCounts(), i) - bucket(seen, i);
      double low = i == 0 ? 0 : bounds.get(i - 1);
      double high = bounds.get(i);
      for (long k = 0; k < fresh && budget > 0; k++, budget--) {
        observe.accept(Double.isInfinite(high) ? Math.nextUp(low)
            : low + (high - low) * (k + 0.5) / fresh);
      }
    }
    seen = now.cumulativeCounts();
  }

  private static long bucket(List<Long> cumulative, int i) {
    return cumulative.get(i) - (i == 0 ? 0 : cumulative.get(i - 1));
  }

  private static long count(List<Long> cumulative) {
    return cumulative.isEmpty() ? 0 : cumulative.get(cumulative.size() - 1);
  }
}
