package dev.sluice.replica.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The simulated engine's clock: runs a task at a {@link System#nanoTime()} deadline, never
 * before it and normally within a millisecond after it. Pekko's timers fire on its scheduler's
 * 10 ms tick, which made a configured {@code ttft_ms} of 35 come out as 40-50 ms and let tokens
 * out two at a time; this clock has a millisecond's resolution instead.
 *
 * <p>Deadlines are gathered by the millisecond: all tasks due in one millisecond share one
 * wake-up of the clock's thread, so a thousand streams at 50 tokens a second cost at most a
 * thousand wake-ups a second, not fifty thousand. Tasks run on the clock's thread and must be
 * short (a stream's async callback: a message to its actor).
 */
final class EngineClock {

  static final long RESOLUTION_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final ScheduledThreadPoolExecutor timer;
  /** Tasks by the millisecond they are due in (deadline rounded up), each with one timer set. */
  private final ConcurrentHashMap<Long, List<Runnable>> due = new ConcurrentHashMap<>();

  /** A clock of its own (tests); engines share {@link #shared()}. */
  EngineClock() {
    timer = new ScheduledThreadPoolExecutor(1, task -> {
      Thread thread = new Thread(task, "sluice-engine-clock");
      thread.setDaemon(true);
      return thread;
    });
  }

  /** The JVM's one clock (its thread starts with the first simulated engine that paces). */
  static EngineClock shared() {
    return Shared.CLOCK;
  }

  /** Runs {@code task} on the clock's thread once {@code deadlineNanos} has passed. */
  void at(long deadlineNanos, Runnable task) {
    long slot = Math.floorDiv(deadlineNanos, RESOLUTION_NANOS) + 1;
    due.compute(slot, (key, tasks) -> {
      List<Runnable> pending = tasks;
      if (pending == null) {
        pending = new ArrayList<>(4);
        long delay = key * RESOLUTION_NANOS - System.nanoTime();
        timer.schedule(() -> fire(key), Math.max(0, delay), TimeUnit.NANOSECONDS);
      }
      pending.add(task);
      return pending;
    });
  }

  /** Wake-ups set so far: one per millisecond that had a task due. */
  long wakeUps() {
    return timer.getTaskCount();
  }

  private void fire(long slot) {
    List<Runnable> tasks = due.remove(slot);
    if (tasks == null) {
      return;
    }
    for (Runnable task : tasks) {
      try {
        task.run();
      } catch (RuntimeException e) {
        // One stream's failure must not stop the others' tokens (and the executor would
        // swallow it anyway): the stream itself fails through its own stage.
        Thread thread = Thread.currentThread();
        thread.getUncaughtExceptionHandler().uncaughtException(thread, e);
      }
    }
  }

  private static final class Shared {
    static final EngineClock CLOCK = new EngineClock();
  }
}
