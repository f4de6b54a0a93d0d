package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.replica.NodeAgent;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;

class AdoptionTest {

  private static final long S = 1_000_000_000L;

  private final ActorRef<NodeAgent.Command> a = TestInbox.<NodeAgent.Command>create("a").getRef();
  private final ActorRef<NodeAgent.Command> b = TestInbox.<NodeAgent.Command>create("b").getRef();

  @Test
  void asksEachNodeOnceAndAgainOnlyWhileItHasNotAnswered() {
    Adoption adoption = new Adoption();
    adoption.start(0, 5 * S, 2);
    assertThat(adoption.toAsk(Set.of(a, b), 0, 5 * S)).containsExactlyInAnyOrder(a, b);
    assertThat(adoption.toAsk(Set.of(a, b), 4 * S, 5 * S)).isEmpty();

    adoption.answered(a);
    assertThat(adoption.toAsk(Set.of(a, b), 5 * S, 5 * S)).containsExactly(b);
    assertThat(adoption.toAsk(Set.of(a, b), 9 * S, 5 * S)).isEmpty();
    assertThat(adoption.toAsk(Set.of(a, b), 10 * S, 5 * S)).containsExactly(b);

    adoption.answered(b);
    assertThat(adoption.toAsk(Set.of(a, b), 30 * S, 5 * S)).isEmpty();
  }

  @Test
  void endsWhenEveryExpectedNodeAnsweredOrAtItsDeadline() {
    Adoption answeredInTime = new Adoption();
    answeredInTime.start(0, 5 * S, 2);
    answeredInTime.answered(a);
    assertThat(answeredInTime.finish(S)).isFalse();
    answeredInTime.answered(b);
    assertThat(answeredInTime.finish(2 * S)).isTrue();
    assertThat(answeredInTime.inProgress()).isFalse();
    assertThat(answeredInTime.finish(3 * S)).isFalse();  // ended once

    Adoption late = new Adoption();
    late.start(0, 5 * S, 2);
    late.answered(a);
    assertThat(late.finish(5 * S)).isFalse();
    assertThat(late.finish(5 * S + 1)).isTrue();
  }

  @Test
  void forgetsNodesThatLeftOnceTheAdoptionIsOver() {
    Adoption adoption = new Adoption();
    adoption.start(0, 5 * S, 1);
    adoption.toAsk(List.of(a, b), 0, 5 * S);
    adoption.answered(a);
    adoption.finish(S);

    adoption.toAsk(List.of(a), 2 * S, 5 * S);  // b left
    assertThat(adoption.answeredCount()).isEqualTo(1);
    // Had b been remembered, it would not be due before 5 s: forgotten, it is asked at once.
    assertThat(adoption.toAsk(List.of(a, b), 3 * S, 5 * S)).containsExactly(b);
  }
}
