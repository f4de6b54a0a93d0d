package dev.sluice.controller;

/**
 * Restart backoff per deployment: after a replica fails, the next start waits min × 2^(failures-1),
 * capped at max; a replica reaching RUNNING resets it. Keeps the last failure's reason for the
 * deployment's status.
 */
final class Backoff {

  private final long minNanos;
  private final long maxNanos;
  private int failures;
  private long notBeforeNanos;
  private String lastFailure = "";
  private final Runnable onFailure;

  /** @param onFailure told of every failure (the replacements metric) */
  Backoff(long minNanos, long maxNanos, Runnable onFailure) {
    this.minNanos = minNanos;
    this.maxNanos = maxNanos;
    this.onFailure = onFailure;
  }

  /** A replica failed, for {@code reason}. */
  void failed(String reason) {
    lastFailure = reason;
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

  /** Why the last replica failed ("" before any failure). */
  String lastFailure() {
    return lastFailure;
  }
}
