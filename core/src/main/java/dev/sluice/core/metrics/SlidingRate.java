package dev.sluice.core.metrics;

/**
 * The share of {@code true} among the last {@code window} outcomes (e.g. the affinity rate over
 * the last 1,000 routing decisions). Thread-safe; O(1) per record.
 */
public final class SlidingRate {

  private final boolean[] outcomes;
  private int next;
  private int size;
  private int hits;

  public SlidingRate(int window) {
    if (window < 1) {
      throw new IllegalArgumentException("window: " + window + " (expected: >= 1)");
    }
    this.outcomes = new boolean[window];
  }

  /** Records an outcome and returns the rate over the window including it. */
  public synchronized double record(boolean hit) {
    if (size == outcomes.length) {
      if (outcomes[next]) {
        hits--;
      }
    } else {
      size++;
    }
    outcomes[next] = hit;
    if (hit) {
      hits++;
    }
    next = (next + 1) % outcomes.length;
    return (double) hits / size;
  }

  /** The rate over the window; 0 before any outcome. */
  public synchronized double rate() {
    return size == 0 ? 0 : (double) hits / size;
  }
}
