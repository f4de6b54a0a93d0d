package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The loud warning for listeners reachable beyond loopback without their guard. */
class ExposureTest {

  @Test
  void anIngressBeyondLoopbackWithoutKeysIsWarnedAbout() {
    assertThat(Exposure.warnPublic("the ingress", "0.0.0.0", false)).isTrue();
    assertThat(Exposure.warnPublic("the ingress", "0.0.0.0", true)).isFalse();
    assertThat(Exposure.warnPublic("the ingress", "127.0.0.1", false)).isFalse();
    assertThat(Exposure.warnPublic("the ingress", "localhost", false)).isFalse();
  }

  @Test
  void internalEndpointsBeyondLoopbackWithoutATokenAreWarnedAbout() {
    assertThat(Exposure.warnInternal("the router", "0.0.0.0", false)).isTrue();
    assertThat(Exposure.warnInternal("the router", "0.0.0.0", true)).isFalse();
    assertThat(Exposure.warnInternal("the router", "::1", false)).isFalse();
  }
}
