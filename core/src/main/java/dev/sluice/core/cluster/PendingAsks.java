package dev.sluice.core.cluster;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Asks waiting for a cluster singleton's answer ({@link SingletonWatch}): failed together when
 * the singleton's node is lost, and sent once more when its node has left gracefully. Pekko's
 * singleton proxy goes on sending to the old singleton until it hears that it stopped, so a
 * message sent in the last ~100 ms of a hand-over is dropped there, and its ask would wait for
 * its whole timeout. The first answer wins; a second one is ignored.
 */
final class PendingAsks {

  private record Pending(long sentNanos, Runnable resend) {}

  private final Map<CompletableFuture<?>, Pending> waiting = new ConcurrentHashMap<>();

  /** Sends {@code ask} and keeps it here until it is answered (or fails). */
  <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> ask) {
    CompletableFuture<T> answer = new CompletableFuture<>();
    AtomicBoolean resent = new AtomicBoolean();
    Runnable resend = () -> {
      if (!answer.isDone() && resent.compareAndSet(false, true)) {
        relay(ask.get(), answer, failure -> true);
      }
    };
    waiting.put(answer, new Pending(System.nanoTime(), resend));
    // With an executor: Pekko's asks are Scala futures, whose CompletableFuture runs even a
    // plain whenComplete asynchronously, on a new thread per call on a 2-core machine.
    answer.whenCompleteAsync((value, failure) -> waiting.remove(answer), Runnable::run);
    // Once sent again, the first send's failure (its timeout) is not the answer.
    relay(ask.get(), answer, failure -> !resent.get());
    return answer;
  }

  private static <T> void relay(CompletableFuture<T> attempt, CompletableFuture<T> answer,
      Function<Throwable, Boolean> failureCounts) {
    attempt.whenCompleteAsync((value, failure) -> {
      if (failure == null) {
        answer.complete(value);
      } else if (failureCounts.apply(failure)) {
        answer.completeExceptionally(failure);
      }
    }, Runnable::run);
  }

  /** Sends again, once, every ask still waiting that was sent at least {@code ageNanos} ago. */
  void resendOlderThan(long ageNanos) {
    long now = System.nanoTime();
    waiting.values().forEach(pending -> {
      if (now - pending.sentNanos() >= ageNanos) {
        pending.resend().run();
      }
    });
  }

  /** Fails every ask still waiting with {@code failure}. */
  void failAll(RuntimeException failure) {
    waiting.keySet().forEach(answer -> answer.completeExceptionally(failure));
  }

  int size() {
    return waiting.size();
  }
}
