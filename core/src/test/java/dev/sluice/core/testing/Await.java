package dev.sluice.core.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Test helper: wait for a condition with a deadline instead of sleeping a fixed time. */
public final class Await {

  private Await() {}

  public static void until(Duration deadline, String what, BooleanSupplier condition) {
    long end = System.nanoTime() + deadline.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("not within " + deadline + ": " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for: " + what, e);
      }
    }
  }

  /** A condition that may throw while its subject is not ready (a server not answering yet). */
  public interface Probe {
    boolean check() throws Exception;
  }

  /** Like {@link #until}, an exception from {@code probe} counting as "not yet". */
  public static void untilOk(Duration deadline, String what, Probe probe) {
    until(deadline, what, () -> {
      try {
        return probe.check();
      } catch (Exception notYet) {
        return false;
      }
    });
  }
}
