package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.testing.RawHttp;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every hostile input of {@link HostileCases} against a live ingress in front of real replicas
 * ({@link HostileRun}). Each case holds the invariants: the designed status and nothing else (no
 * 5xx but the designed ones), exactly the designed messages at the replicas (never more than the
 * client sent), and every concurrent victim gets its own answer. After all of them, no slot and
 * no lease is left behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileInputIT {

  private SluiceNode node;
  private HostileRun run;

  @BeforeAll
  void start() throws Exception {
    node = HostileRun.node("");
    run = new HostileRun(node, node.ingressPort().orElseThrow());
  }

  @AfterAll
  void stop() {
    try {
      run.noSlotOrLeaseIsLeftBehind();
    } finally {
      node.close();
    }
  }

  Stream<HostileCases.Case> cases() {
    return HostileCases.all(HostileRun.MAX_BODY).stream();
  }

  @Test
  void theTableCoversAtLeastAHundredInputs() {
    assertThat(HostileCases.all(HostileRun.MAX_BODY)).hasSizeGreaterThanOrEqualTo(100);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void holdsTheInvariants(HostileCases.Case hostile) throws Exception {
    HostileRun.Result result = run.send(hostile);

    assertThat(result.answers()).as("answers").hasSize(hostile.answers());
    RawHttp.Response first = result.answers().get(0);
    assertThat(first.status()).as("status").isEqualTo(hostile.status());
    hostile.check().accept(first);
    for (RawHttp.Response answer : result.answers()) {
      if (answer.status() >= 500) {
        assertThat(answer.status()).as("only designed 5xx").isIn(503, 505);
      }
    }
    assertThat(result.forwarded()).as("messages that reached the replicas")
        .isEqualTo(hostile.forwarded());
  }
}
