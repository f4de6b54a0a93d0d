package dev.sluice.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class PendingAsksTest {

  private final PendingAsks pending = new PendingAsks();
  /** Every send of the ask under test, in order; each completed by the test. */
  private final List<CompletableFuture<String>> sends = new ArrayList<>();
  private final Supplier<CompletableFuture<String>> ask = () -> {
    CompletableFuture<String> send = new CompletableFuture<>();
    sends.add(send);
    return send;
  };

  @Test
  void anAskAnsweredIsForgotten() {
    CompletableFuture<String> answer = pending.send(ask);

    sends.get(0).complete("replica-1");

    assertThat(answer).isCompletedWithValue("replica-1");
    assertThat(pending.size()).isZero();
    pending.resendOlderThan(0);
    assertThat(sends).hasSize(1);
  }

  @Test
  void anAskLostWithTheOldSingletonIsSentOnceMoreAndTheResendAnswers() {
    CompletableFuture<String> answer = pending.send(ask);

    pending.resendOlderThan(0);
    pending.resendOlderThan(0);
    sends.get(0).completeExceptionally(new TimeoutException("the first send's timeout"));

    assertThat(sends).as("sent once more, not twice").hasSize(2);
    assertThat(answer).as("the lost send's timeout is not the answer").isNotDone();
    sends.get(1).complete("replica-2");
    assertThat(answer).isCompletedWithValue("replica-2");
    assertThat(pending.size()).isZero();
  }

  @Test
  void theFirstAnswerWinsWhenBothSendsAreAnswered() {
    CompletableFuture<String> answer = pending.send(ask);
    pending.resendOlderThan(0);

    sends.get(0).complete("from the old singleton");
    sends.get(1).complete("from the new one");

    assertThat(answer).isCompletedWithValue("from the old singleton");
  }

  @Test
  void aResendThatFailsIsTheAnswer() {
    CompletableFuture<String> answer = pending.send(ask);
    pending.resendOlderThan(0);

    sends.get(1).completeExceptionally(new TimeoutException("no answer from the new one"));

    assertThat(answer).isCompletedExceptionally();
  }

  @Test
  void anAskYoungerThanTheAgeIsNotSentAgain() {
    CompletableFuture<String> answer = pending.send(ask);

    pending.resendOlderThan(java.time.Duration.ofMinutes(1).toNanos());

    assertThat(sends).hasSize(1);
    assertThat(answer).isNotDone();
  }

  @Test
  void failAllFailsEveryAskStillWaiting() {
    CompletableFuture<String> waiting = pending.send(ask);
    CompletableFuture<String> answered = pending.send(ask);
    sends.get(1).complete("replica-1");

    pending.failAll(new SingletonWatch.SingletonUnreachable("the node is unreachable"));

    assertThat(waiting).isCompletedExceptionally();
    assertThat(answered).isCompletedWithValue("replica-1");
    assertThat(pending.size()).isZero();
  }
}
