package dev.sluice.replica.http;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The replica's {@code max_ongoing_requests} semaphore. Lock-free; {@link #tryAcquire()} never
 * lets the count exceed the limit, {@link Slot#release()} is idempotent.
 */
public final class Slots {

  private final int limit;
  private final AtomicInteger ongoing = new AtomicInteger();

  public Slots(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit: " + limit + " (expected: >= 1)");
    }
    this.limit = limit;
  }

  /** A held slot, or null when all {@code limit} slots are taken. */
  public Slot tryAcquire() {
    while (true) {
      int current = ongoing.get();
      if (current >= limit) {
        return null;
      }
      if (ongoing.compareAndSet(current, current + 1)) {
        return new Slot();
      }
    }
  }

  public int ongoing() {
    return ongoing.get();
  }

  public int limit() {
    return limit;
  }

  /** One held slot; releasing it twice changes nothing. */
  public final class Slot {
    private final AtomicInteger released = new AtomicInteger();

    private Slot() {}

    public void release() {
      if (released.compareAndSet(0, 1)) {
        ongoing.decrementAndGet();
      }
    }

    public boolean isReleased() {
      return released.get() == 1;
    }
  }
}
