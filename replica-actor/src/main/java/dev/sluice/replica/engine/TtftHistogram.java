package dev.sluice.replica.engine;

import java.util.List;

/**
 * An engine's own time-to-first-token histogram as it exports it (vLLM's and SGLang's
 * {@code time_to_first_token_seconds}): cumulative counts per upper bound in seconds, the last
 * bound +Inf. {@link #NONE} when the engine exports none.
 *
 * @param upperBounds increasing, the last {@code +Inf}
 * @param cumulativeCounts for each bound, the requests whose first token came within it
 * @param sum the times added up, in seconds (NaN when not known)
 */
public record TtftHistogram(List<Double> upperBounds, List<Long> cumulativeCounts, double sum) {

  public static final TtftHistogram NONE = new TtftHistogram(List.of(), List.of(), 0);

  /**
   * Buckets from 1 ms to 2,560 s, as vLLM's: what {@code sluice engine-sim} exports.
   */
  public static final List<Double> ENGINE_SIM_BOUNDS = List.of(0.001, 0.005, 0.01, 0.02, 0.04,
      0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0,
      640.0, 2560.0, Double.POSITIVE_INFINITY);

  public TtftHistogram {
    upperBounds = List.copyOf(upperBounds);
    cumulativeCounts = List.copyOf(cumulativeCounts);
    if (upperBounds.size() != cumulativeCounts.size()) {
      throw new IllegalArgumentException(upperBounds.size() + " bounds but "
          + cumulativeCounts.size() + " counts");
    }
    for (int i = 0; i < upperBounds.size(); i++) {
      boolean ordered = i == 0 ? upperBounds.get(0) > 0 && cumulativeCounts.get(0) >= 0
          : upperBounds.get(i) > upperBounds.get(i - 1)
              && cumulativeCounts.get(i) >= cumulativeCounts.get(i - 1);
      if (!ordered) {
        throw new IllegalArgumentException("not a cumulative histogram: bounds " + upperBounds
            + ", counts " + cumulativeCounts);
      }
    }
    if (!upperBounds.isEmpty() && upperBounds.get(upperBounds.size() - 1)
        != Double.POSITIVE_INFINITY) {
      throw new IllegalArgumentException("the last bound is not +Inf: " + upperBounds);
    }
  }

  public boolean isEmpty() {
    return upperBounds.isEmpty();
  }

  /** How many requests had their first token. */
  public long count() {
    return isEmpty() ? 0 : cumulativeCounts.get(cumulativeCounts.size() - 1);
  }
}
