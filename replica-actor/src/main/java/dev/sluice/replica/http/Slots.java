package dev.sluice.replica.http;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The replica's {@code max_ongoing_requests} semaphore. Lock-free; {@link #tryAcquire()} never
 * lets the count exceed the limit, {@link Slot#release()} is idempotent.
 */
public final class Slots {

  private final int limit;
  private final AtomicInteger ongoing = new AtomicInteger();
  /** Requests that wanted a slot at the same moment (held + being refused), and its peak. */
  private final AtomicInteger demand = new AtomicInteger();
  private final AtomicInteger peakDemand = new AtomicInteger();
  private final AtomicLong admitted = new AtomicLong();

  public Slots(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit: " + limit + " (expected: >= 1)");
    }
    this.limit = limit;
  }

  /** A held slot, or null when all {@code limit} slots are taken. */
  public Slot tryAcquire() {
    peakDemand.accumulateAndGet(demand.incrementAndGet(), Math::max);
    while (true) {
      int current = ongoing.get();
      if (current >= limit) {
        demand.decrementAndGet();
        return null;
      }
      if (ongoing.compareAndSet(current, current + 1)) {
        admitted.incrementAndGet();
        return new Slot();
      }
    }
  }

  /**
   * The most requests that ever wanted a slot at once: above {@link #limit()} means requests were
   * sent to this replica while it was full (an overshoot that a capacity-aware router avoids).
   */
  public int peakDemand() {
    return peakDemand.get();
  }

  /** Slots handed out since start: a change tells routers that requests arrived. */
  public long admitted() {
    return admitted.get();
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
        demand.decrementAndGet();
      }
    }

    public boolean isReleased() {
      return released.get() == 1;
    }
  }
}
