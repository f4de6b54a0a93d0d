package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.testing.RawHttp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every hostile input of {@link HostileCases} against a live ingress in front of real replicas
 * ({@link HostileRun}). Each case holds the invariants: the designed status and nothing else (no
 * 5xx but the designed ones), exactly the designed messages at the replicas (never more than the
 * client sent), and every concurrent victim gets its own answer. After all of them, no slot and
 * no lease is left behind.
 */
class HostileInputIT extends HostileSuite {

  @Override
  String nodeSettings() {
    return "";
  }

  @Override
  int port(SluiceNode node) {
    return node.ingressPort().orElseThrow();
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
