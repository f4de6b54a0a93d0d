package dev.sluice.controller;

/**
 * Restart backoff per deployment: after a replica fails, the next start waits min × 2^(failures-1),
 * capped at max; a replica reaching RUNNING resets it.
 */
final class Backoff {

  private final long minNanos;
  private final long maxNanos;
  private int failures;
  private long notBeforeNanos;
  private final Runnable onFailure;

  /** @param onFailure told of every failure (the replacements metric) */
  Backoff(long minNanos, long maxNanos, Runnable onFailure) {
    this.minNanos = minNanos;
    this.maxNanos = maxNanos;
    this.onFailure = onFailure;
  }

  void failed() {
    onFailure.run();
    failures++;
    long delay = minNanos << Math.min(failures - 1, 20);
    notBeforeNanos = System.nanoTime() + Math.min(delay < 0 ? maxNanos : delay, maxNanos);
  }

  void succeeded() {
    failures = 0;
    notBeforeNanos = 0;
  }

  boolean mayStart(long nowNanos) {
    return failures == 0 || nowNanos - notBeforeNanos >= 0;
  }

  int failures() {
    return failures;
  }
}
