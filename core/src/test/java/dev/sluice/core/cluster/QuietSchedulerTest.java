package dev.sluice.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.Scheduler;
import org.apache.pekko.actor.SchedulerTask;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.dispatch.ExecutionContexts;
import org.apache.pekko.event.NoLogging;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import scala.concurrent.ExecutionContext;
import scala.concurrent.duration.FiniteDuration;

class QuietSchedulerTest {

  private static final long TICK_MS = 10;
  /** Runs tasks on the timer thread itself: the order they were handed over is the order run. */
  private static final ExecutionContext DIRECT = ExecutionContexts.fromExecutor(Runnable::run);

  private final QuietScheduler scheduler = new QuietScheduler(ConfigFactory.parseString(
      "pekko.scheduler { tick-duration = " + TICK_MS + "ms, shutdown-timeout = 5s }"),
      NoLogging.getInstance(), task -> {
        Thread thread = new Thread(task, "quiet-scheduler-test");
        thread.setDaemon(true);
        return thread;
      });

  @AfterEach
  void close() {
    scheduler.close();
  }

  private static FiniteDuration ms(long millis) {
    return FiniteDuration.create(millis, TimeUnit.MILLISECONDS);
  }

  /** A timer due after {@code millis}; the latch opens when it has run. */
  private CountDownLatch fence(long millis) {
    CountDownLatch ran = new CountDownLatch(1);
    scheduler.scheduleOnce(ms(millis), ran::countDown, DIRECT);
    return ran;
  }

  @Test
  void aTimerRunsNeverBeforeItsDelay() throws Exception {
    long scheduled = System.nanoTime();
    AtomicLong ranAt = new AtomicLong();
    CountDownLatch ran = new CountDownLatch(1);
    scheduler.scheduleOnce(ms(35), () -> {
      ranAt.set(System.nanoTime());
      ran.countDown();
    }, DIRECT);

    assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(ranAt.get() - scheduled).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(35));
  }

  @Test
  void timersDueOnOneTickRunInTheOrderTheyWereScheduled() throws Exception {
    List<Integer> order = Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < 20; i++) {
      int n = i;
      scheduler.scheduleOnce(ms(20), () -> order.add(n), DIRECT);
    }
    assertThat(fence(20).await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(order).containsExactlyElementsOf(
        java.util.stream.IntStream.range(0, 20).boxed().toList());
  }

  @Test
  void withNothingDueTheThreadSleepsUntilTheNextTimer() throws Exception {
    int before = scheduler.wakeUps();

    assertThat(fence(300).await(5, TimeUnit.SECONDS)).isTrue();

    // Woken to take the new timer into account, then at its tick. Pekko's default scheduler
    // would have woken ~30 times (every 10 ms tick); a spurious wake-up is the OS's, not a tick.
    assertThat(scheduler.wakeUps() - before).isBetween(1, 4);
  }

  @Test
  void anEarlierTimerWakesTheSleepingThread() throws Exception {
    scheduler.scheduleOnce(ms(60_000), () -> { }, DIRECT);
    assertThat(fence(20).await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aCancelledTimerNeverRunsAndItsTaskHearsOfIt() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch told = new CountDownLatch(1);
    SchedulerTask task = new SchedulerTask() {
      @Override
      public void run() {
        runs.incrementAndGet();
      }

      @Override
      public void cancelled() {
        told.countDown();
      }
    };
    Cancellable timer = scheduler.scheduleOnce(ms(50), task, DIRECT);

    assertThat(timer.cancel()).isTrue();
    assertThat(timer.isCancelled()).isTrue();
    assertThat(timer.cancel()).as("only once").isFalse();
    assertThat(told.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(fence(100).await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(runs).hasValue(0);
  }

  @Test
  void aTimerThatRanCannotBeCancelled() throws Exception {
    CountDownLatch ran = new CountDownLatch(1);
    Cancellable timer = scheduler.scheduleOnce(ms(1), ran::countDown, DIRECT);
    assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(timer.cancel()).isFalse();
    assertThat(timer.isCancelled()).isFalse();
  }

  @Test
  void aZeroDelayRunsAtOnce() {
    AtomicInteger runs = new AtomicInteger();
    scheduler.scheduleOnce(ms(0), runs::incrementAndGet, DIRECT);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aRepeatingTimerRunsAtItsRateUntilCancelled() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch five = new CountDownLatch(5);
    long started = System.nanoTime();
    Cancellable timer = scheduler.scheduleAtFixedRate(ms(0), ms(20), () -> {
      runs.incrementAndGet();
      five.countDown();
    }, DIRECT);

    assertThat(five.await(5, TimeUnit.SECONDS)).isTrue();
    // The fifth run is due 80 ms after the first: at a fixed rate, never sooner.
    assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(
        TimeUnit.MILLISECONDS.toNanos(80));
    assertThat(timer.cancel()).isTrue();
    int atCancel = runs.get();
    assertThat(fence(100).await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(runs.get()).isEqualTo(atCancel);
    assertThatThrownBy(() -> scheduler.scheduleAtFixedRate(ms(0), ms(0), () -> { }, DIRECT))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void cancelledTimersDoNotPileUpUntilTheyAreDue() throws Exception {
    List<Cancellable> timers = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      timers.add(scheduler.scheduleOnce(ms(3_600_000), () -> { }, DIRECT));
    }
    timers.subList(0, 4_000).forEach(Cancellable::cancel);

    assertThat(fence(20).await(5, TimeUnit.SECONDS)).isTrue();

    assertThat(scheduler.pending()).isEqualTo(1_000);
  }

  @Test
  void onCloseTasksThatAskForItRunAndNothingMoreIsAccepted() {
    AtomicInteger onClose = new AtomicInteger();
    AtomicInteger plain = new AtomicInteger();
    Scheduler.TaskRunOnClose runOnClose = onClose::incrementAndGet;
    scheduler.scheduleOnce(ms(60_000), runOnClose, DIRECT);
    scheduler.scheduleOnce(ms(60_000), plain::incrementAndGet, DIRECT);

    scheduler.close();

    assertThat(onClose).hasValue(1);
    assertThat(plain).hasValue(0);
    assertThatThrownBy(() -> scheduler.scheduleOnce(ms(10), () -> { }, DIRECT))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void pekkoLoadsItAsTheActorSystemsScheduler() throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "quiet",
        ConfigFactory.parseString("pekko.scheduler.implementation = "
            + QuietScheduler.class.getName()).withFallback(ConfigFactory.load()));
    try {
      assertThat(system.classicSystem().scheduler()).isInstanceOf(QuietScheduler.class);
      CountDownLatch ran = new CountDownLatch(1);
      system.scheduler().scheduleOnce(Duration.ofMillis(20), ran::countDown,
          system.executionContext());
      assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
    } finally {
      system.terminate();
      assertThat(system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS))
          .isNotNull();
    }
  }
}
