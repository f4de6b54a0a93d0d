package dev.sluice.core.cluster;

import com.typesafe.config.Config;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.pekko.actor.AbstractScheduler;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.Scheduler;
import org.apache.pekko.actor.SchedulerException;
import org.apache.pekko.actor.SchedulerTask;
import org.apache.pekko.event.LoggingAdapter;
import scala.concurrent.ExecutionContext;
import scala.concurrent.duration.FiniteDuration;

/**
 * Pekko's scheduler with the same timing as its default one and no wake-ups when nothing is due.
 * Pekko's {@code LightArrayRevolverScheduler} wakes every {@code pekko.scheduler.tick-duration}
 * (10 ms) whether or not a timer is due: on an idle node that was a hundred wake-ups a second,
 * the largest single source of its idle CPU. This one keeps the timers in a heap and sleeps until
 * the first is due.
 *
 * <p>Timing is Pekko's: a timer fires on the first tick (a multiple of the tick duration since
 * start) at or after its delay, never before it, and the timers due on one tick go out together,
 * so a busy node sees the same batches as before. Cancelled timers are dropped as they come due,
 * or all at once when they outnumber the live ones. Repeating timers run at a fixed rate, each
 * run scheduled when the previous one has finished (as Pekko's do). On close the timers whose
 * task is a {@link Scheduler.TaskRunOnClose} run; the others are dropped.
 *
 * <p>Selected with {@code pekko.scheduler.implementation} (Pekko loads it by reflection with the
 * constructor below).
 */
public final class QuietScheduler extends AbstractScheduler implements Closeable {

  private static final int ACTIVE = 0;
  private static final int DONE = 1;
  private static final int CANCELLED = 2;
  /** Below this many cancellations since the last purge, cancelled timers wait to come due. */
  private static final int PURGE_AT_LEAST = 1024;

  private final LoggingAdapter log;
  private final long tickNanos;
  private final Duration shutdownTimeout;
  private final long start = System.nanoTime();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final PriorityQueue<Timer> timers = new PriorityQueue<>();
  private final AtomicInteger cancellations = new AtomicInteger();
  private final AtomicInteger wakeUps = new AtomicInteger();
  private final Thread thread;
  /** Guarded by {@link #lock}. */
  private long sequence;
  /** The tick the timer thread sleeps until (guarded by {@link #lock}); MIN_VALUE while awake. */
  private long sleepsUntil = Long.MIN_VALUE;
  /** Guarded by {@link #lock}. */
  private boolean stopped;

  public QuietScheduler(Config config, LoggingAdapter log, ThreadFactory threadFactory) {
    this.log = log;
    this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1),
        config.getDuration("pekko.scheduler.tick-duration").toNanos());
    this.shutdownTimeout = config.getDuration("pekko.scheduler.shutdown-timeout");
    this.thread = threadFactory.newThread(this::run);
    this.thread.start();
  }

  @Override
  public Cancellable scheduleOnce(FiniteDuration delay, Runnable task, ExecutionContext executor) {
    try {
      return add(new Timer(task, executor, 0), delay.toNanos());
    } catch (SchedulerException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  @Override
  public Cancellable schedule(FiniteDuration initialDelay, FiniteDuration interval, Runnable task,
      ExecutionContext executor) {
    if (interval.toNanos() <= 0) {
      throw new IllegalArgumentException("Task scheduled with an interval of " + interval
          + ", which means an infinite loop. The interval must be greater than 0.");
    }
    return add(new Timer(task, executor, interval.toNanos()), initialDelay.toNanos());
  }

  @Override
  public double maxFrequency() {
    return (double) TimeUnit.SECONDS.toNanos(1) / tickNanos;
  }

  /** Timers in the heap, cancelled ones not yet dropped included (tests). */
  int pending() {
    lock.lock();
    try {
      return timers.size();
    } finally {
      lock.unlock();
    }
  }

  /** How often the timer thread has woken up so far (tests). */
  int wakeUps() {
    return wakeUps.get();
  }

  private Cancellable add(Timer timer, long delayNanos) {
    if (delayNanos <= 0 && timer.intervalNanos == 0) {
      lock.lock();
      try {
        if (stopped) {
          throw new SchedulerException("cannot enqueue after timer shutdown");
        }
      } finally {
        lock.unlock();
      }
      timer.set(DONE);
      timer.executor.execute(timer.task);
      return timer;
    }
    arm(timer, System.nanoTime() + Math.max(0, delayNanos));
    return timer;
  }

  /** Puts {@code timer} in the heap, due on the first tick at or after {@code deadline}. */
  private void arm(Timer timer, long deadline) {
    long sinceStart = deadline - start;
    long tick = sinceStart <= 0 ? 0 : (sinceStart - 1) / tickNanos + 1;
    lock.lock();
    try {
      if (stopped) {
        throw new SchedulerException("cannot enqueue after timer shutdown");
      }
      timer.deadline = deadline;
      timer.tick = tick;
      timer.sequence = sequence++;
      timers.add(timer);
      if (tick < sleepsUntil) {
        changed.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  private long currentTick() {
    return (System.nanoTime() - start) / tickNanos;
  }

  private void run() {
    List<Timer> due = new ArrayList<>();
    while (true) {
      lock.lock();
      try {
        if (!awaitDue(due)) {
          return;
        }
      } catch (InterruptedException e) {
        continue;  // the thread is not stopped by interruption, only by close()
      } finally {
        sleepsUntil = Long.MIN_VALUE;
        lock.unlock();
      }
      for (Timer timer : due) {
        timer.fire();
      }
      due.clear();
    }
  }

  /** Sleeps until timers are due and moves them to {@code due}; false once stopped. */
  private boolean awaitDue(List<Timer> due) throws InterruptedException {
    while (!stopped) {
      purgeCancelled();
      long now = currentTick();
      Timer first = timers.peek();
      if (first != null && first.tick <= now) {
        while ((first = timers.peek()) != null && first.tick <= now) {
          timers.poll();
          if (first.get() != CANCELLED) {
            due.add(first);
          }
        }
        if (!due.isEmpty()) {
          return true;
        }
        continue;
      }
      if (first == null) {
        sleepsUntil = Long.MAX_VALUE;
        changed.await();
      } else {
        sleepsUntil = first.tick;
        changed.awaitNanos(start + first.tick * tickNanos - System.nanoTime());
      }
      sleepsUntil = Long.MIN_VALUE;
      wakeUps.incrementAndGet();
    }
    return false;
  }

  /**
   * Drops cancelled timers from the heap once there have been many cancellations since the last
   * purge compared with the heap's size (a timer cancelled long before it is due, such as a
   * request timeout, would otherwise stay there until then). The count is a hint: it also counts
   * timers that came due, or ran, before their cancellation was noticed.
   */
  private void purgeCancelled() {
    int cancelled = cancellations.get();
    if (cancelled >= PURGE_AT_LEAST && cancelled * 2 > timers.size()) {
      timers.removeIf(timer -> timer.get() == CANCELLED);
      cancellations.set(0);
    }
  }

  /** Stops the timer thread; timers whose task is a TaskRunOnClose run now, the rest never. */
  @Override
  public void close() {
    lock.lock();
    try {
      if (stopped) {
        return;
      }
      stopped = true;
      changed.signal();
    } finally {
      lock.unlock();
    }
    try {
      thread.join(shutdownTimeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<Timer> left;
    lock.lock();
    try {
      left = new ArrayList<>(timers);
      timers.clear();
    } finally {
      lock.unlock();
    }
    left.sort(null);
    for (Timer timer : left) {
      if (timer.task instanceof Scheduler.TaskRunOnClose && timer.compareAndSet(ACTIVE, DONE)) {
        try {
          timer.task.run();
        } catch (SchedulerException ignored) {
          // a terminated target
        } catch (RuntimeException e) {
          log.error(e, "exception while running a timer task on close");
        }
      }
    }
  }

  /** One scheduled task; its state is the AtomicInteger it extends. */
  private final class Timer extends AtomicInteger implements Cancellable, Comparable<Timer> {
    final Runnable task;
    final ExecutionContext executor;
    final long intervalNanos;
    /** Set while out of the heap, read under the lock while in it. */
    long deadline;
    long tick;
    long sequence;

    Timer(Runnable task, ExecutionContext executor, long intervalNanos) {
      super(ACTIVE);
      this.task = task;
      this.executor = executor;
      this.intervalNanos = intervalNanos;
    }

    @Override
    public int compareTo(Timer other) {
      int byTick = Long.compare(tick, other.tick);
      return byTick != 0 ? byTick : Long.compare(sequence, other.sequence);
    }

    /** On the timer thread: hands the task to its executor. */
    void fire() {
      if (intervalNanos == 0 && !compareAndSet(ACTIVE, DONE)) {
        return;
      }
      try {
        executor.execute(intervalNanos == 0 ? task : this::runAndRearm);
      } catch (RuntimeException e) {
        executor.reportFailure(e);
      }
    }

    /** A repeating timer's run: the next one is armed once this one has finished. */
    private void runAndRearm() {
      if (get() != ACTIVE) {
        return;
      }
      task.run();
      if (get() == ACTIVE) {
        try {
          arm(this, Math.max(deadline + intervalNanos, System.nanoTime()));
        } catch (SchedulerException ignored) {
          // shut down meanwhile: no more runs
        }
      }
    }

    @Override
    public boolean cancel() {
      if (!compareAndSet(ACTIVE, CANCELLED)) {
        return false;
      }
      cancellations.incrementAndGet();
      if (task instanceof SchedulerTask scheduled) {
        try {
          executor.execute(scheduled::cancelled);
        } catch (RuntimeException e) {
          executor.reportFailure(e);
        }
      }
      return true;
    }

    @Override
    public boolean isCancelled() {
      return get() == CANCELLED;
    }
  }
}
