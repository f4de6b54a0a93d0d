package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code sluice.security.strict} on a real node: one whose ingress would listen beyond loopback
 * without API keys does not start, and says so; the same on loopback starts and serves.
 */
class StrictSecurityIT {

  private static final String CHAT = """
      {"messages":[{"role":"user","content":"hi"}],"max_tokens":2}""";

  @Test
  void aStrictNodeWithAnUnguardedIngressDoesNotStart() {
    assertThatThrownBy(() -> SluiceNode.start(NodeOptions.local(
        Optional.of(TestNodes.appFile(TestNodes.app(1, 0, 1, 8))),
        ConfigFactory.parseString("""
            sluice.security.strict = on
            sluice.ingress.host = "0.0.0.0"
            """).withFallback(TestNodes.overrides()))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("sluice.security.strict (env SLUICE_SECURITY_STRICT) is on, and "
            + "this node would listen beyond loopback unguarded:\n  1. the ingress listens on "
            + "0.0.0.0 without API keys");
  }

  @Test
  void aStrictNodeOnLoopbackStartsAndServes() throws Exception {
    try (SluiceNode node = TestNodes.local(TestNodes.app(1, 0, 1, 8),
        ConfigFactory.parseString("sluice.security.strict = on"))) {
      assertThat(TestNodes.post(node.ingressPort().orElseThrow(), "/v1/chat/completions", CHAT)
          .statusCode()).isEqualTo(200);
    }
  }
}
