package dev.sluice.replica.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class TokenPacerTest {

  private static final ActorTestKit testKit = ActorTestKit.create(ConfigFactory
      .parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  /** Runs {@code tokens} tokens through a pacer; each token's arrival, in ns after the start. */
  private static List<Long> arrivals(int tokens, Duration first, Duration interval)
      throws Exception {
    long start = System.nanoTime();
    return Source.range(0, tokens - 1)
        .via(new TokenPacer<>(EngineClock.shared(), first, interval))
        .map(token -> System.nanoTime() - start)
        .runWith(Sink.seq(), testKit.system())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void noTokenLeavesBeforeItsTimeNotEvenTheFirstFew() throws Exception {
    // A token-bucket throttle let the first few tokens out at once (a burst of 5 at 20 ms).
    List<Long> arrivals = arrivals(8, Duration.ofMillis(30), Duration.ofMillis(20));

    assertThat(arrivals).hasSize(8);
    for (int i = 0; i < arrivals.size(); i++) {
      assertThat(arrivals.get(i)).as("token %d", i).isGreaterThanOrEqualTo((30 + 20L * i) * MS);
    }
  }

  @Test
  void withoutAnIntervalTheTokensFollowTheFirstAtOnce() throws Exception {
    List<Long> arrivals = arrivals(50, Duration.ofMillis(40), Duration.ZERO);

    assertThat(arrivals.get(0)).isGreaterThanOrEqualTo(40 * MS);
    assertThat(arrivals.get(49) - arrivals.get(0))
        .as("49 tokens due at once need no further wake-up").isLessThan(40 * MS);
  }

  @Test
  void tokensHeldBackByASlowReaderDoNotPushTheLaterOnesBack() throws Exception {
    // The engine generates on its schedule: once the reader takes the first token, 400 ms late,
    // the five behind it (due at 50..250 ms) are all due and come at once, not 50 ms apart.
    long start = System.nanoTime();
    List<Long> arrivals = Source.range(0, 5)
        .via(new TokenPacer<>(EngineClock.shared(), Duration.ZERO, Duration.ofMillis(50)))
        .mapAsync(1, token -> token == 0 ? later(400) : CompletableFuture.completedFuture(token))
        .map(token -> System.nanoTime() - start)
        .runWith(Sink.seq(), testKit.system())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(arrivals).hasSize(6);
    assertThat(arrivals.get(5) - arrivals.get(1)).isLessThan(150 * MS);
  }

  @Test
  void theLastTokenIsDeliveredWhenTheSourceEndsWhileItWaits() throws Exception {
    List<Integer> tokens = Source.range(0, 2)
        .via(new TokenPacer<>(EngineClock.shared(), Duration.ofMillis(20), Duration.ofMillis(20)))
        .runWith(Sink.seq(), testKit.system())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(tokens).containsExactly(0, 1, 2);
  }

  @Test
  void theClockRunsEveryTaskNoneEarlyAndOneWakeUpPerMillisecond() throws Exception {
    EngineClock clock = new EngineClock();
    // 100 us into a millisecond 200 ms from now: the offsets below stay in their millisecond.
    long base = (Math.floorDiv(System.nanoTime(), MS) + 200) * MS + 100_000;
    List<Long> deadlines = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      deadlines.add(base + (i % 10) * 3 * MS + (i % 7) * 1000);
    }
    Collections.shuffle(deadlines);
    ConcurrentLinkedQueue<Long> early = new ConcurrentLinkedQueue<>();
    CountDownLatch ran = new CountDownLatch(deadlines.size());

    for (long deadline : deadlines) {
      clock.at(deadline, () -> {
        long lateness = System.nanoTime() - deadline;
        if (lateness < 0) {
          early.add(lateness);
        }
        ran.countDown();
      });
    }

    assertThat(ran.await(10, TimeUnit.SECONDS)).as("every task ran").isTrue();
    assertThat(early).as("tasks run before their deadline").isEmpty();
    assertThat(clock.wakeUps()).as("10 distinct milliseconds, 10 wake-ups").isEqualTo(10);
  }

  private static CompletableFuture<Integer> later(long millis) {
    return CompletableFuture.supplyAsync(() -> 0,
        CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS));
  }
}
