package dev.sluice.ingress;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.pekko.pattern.AskTimeoutException;
import org.junit.jupiter.api.Test;

class RelayedPathTest {

  @Test
  void aReplicaActorThatDoesNotAnswerIsDescribedWithoutItsPath() {
    // Pekko's message names the actor's path, and with it the address of the replica's node.
    var timeout = new AskTimeoutException("Ask timed out on "
        + "[Actor[pekko://sluice@10.1.2.3:25520/user/replica-7#-12345]] after [4500 ms]");

    String detail = RelayedPath.askFailure(timeout, Duration.ofMillis(4500), "r1");

    assertThat(detail).isEqualTo("no answer from the replica within 4500 ms");
  }

  @Test
  void anyOtherFailureIsNamedByItsKindAlone() {
    var failure = new IllegalStateException("serializer for pekko://sluice@10.1.2.3:25520 gone");

    String detail = RelayedPath.askFailure(failure, Duration.ofSeconds(5), "r2");

    assertThat(detail).isEqualTo("the replica could not be asked (IllegalStateException)")
        .doesNotContain("10.1.2.3");
  }
}
