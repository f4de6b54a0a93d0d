package dev.sluice.replica.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.function.DoubleConsumer;

/**
 * Times to first token counted into fixed buckets, for an engine that exports its own
 * histogram ({@code sluice engine-sim}, as vLLM does). Thread-safe.
 */
public final class TtftCounts implements DoubleConsumer {

  private final List<Double> bounds;
  /** Per bucket, not cumulative. */
  private final AtomicLongArray counts;
  private final DoubleAdder sum = new DoubleAdder();

  public TtftCounts(List<Double> bounds) {
    this.bounds = new TtftHistogram(bounds, bounds.stream().map(bound -> 0L).toList(), 0)
        .upperBounds();
    this.counts = new AtomicLongArray(bounds.size());
  }

  @Override
  public void accept(double seconds) {
    int bucket = 0;
    while (seconds > bounds.get(bucket)) {
      bucket++;
    }
    counts.incrementAndGet(bucket);
    sum.add(seconds);
  }

  /** The counts so far, cumulative. */
  public TtftHistogram snapshot() {
    List<Long> cumulative = new ArrayList<>(bounds.size());
    long total = 0;
    for (int i = 0; i < bounds.size(); i++) {
      total += counts.get(i);
      cumulative.add(total);
    }
    return new TtftHistogram(bounds, cumulative, sum.sum());
  }
}
