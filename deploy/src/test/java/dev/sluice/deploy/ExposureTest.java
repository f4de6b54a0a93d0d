package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.sluice.controller.api.ApiGuard;
import org.junit.jupiter.api.Test;

/** Which listeners count as reachable beyond loopback without their guard, and what is said. */
class ExposureTest {

  @Test
  void anIngressBeyondLoopbackWithoutKeysIsFound() {
    assertThat(Exposure.publicListener("the ingress", "0.0.0.0", false)).hasValueSatisfying(
        sentence -> assertThat(sentence).startsWith("the ingress listens on 0.0.0.0 without API "
            + "keys").contains("SLUICE_API_KEYS"));
    assertThat(Exposure.publicListener("the ingress", "0.0.0.0", true)).isEmpty();
    assertThat(Exposure.publicListener("the ingress", "127.0.0.1", false)).isEmpty();
    assertThat(Exposure.publicListener("the ingress", "localhost", false)).isEmpty();
  }

  @Test
  void internalEndpointsBeyondLoopbackWithoutATokenAreFound() {
    assertThat(Exposure.internalEndpoint("the router", "0.0.0.0", false)).isPresent();
    assertThat(Exposure.internalEndpoint("the router", "0.0.0.0", true)).isEmpty();
    assertThat(Exposure.internalEndpoint("the router", "::1", false)).isEmpty();
  }

  @Test
  void theControllerApiNeedsItsOwnTokenAndHttpsBeyondLoopback() {
    assertThat(Exposure.controllerApi("127.0.0.1", ApiGuard.Credential.NONE)).isEmpty();
    assertThat(Exposure.controllerApi("0.0.0.0", ApiGuard.Credential.API_TOKEN)).isEmpty();
    assertThat(Exposure.controllerApi("0.0.0.0", ApiGuard.Credential.NONE)).hasValueSatisfying(
        sentence -> assertThat(sentence).startsWith("the controller API listens on 0.0.0.0 "
            + "without a token").contains("run any program", "SLUICE_CONTROLLER_API_TOKEN"));
    assertThat(Exposure.controllerApi("0.0.0.0", ApiGuard.Credential.CLUSTER_TOKEN))
        .hasValueSatisfying(sentence -> assertThat(sentence).startsWith("the controller API "
            + "listens on 0.0.0.0 and takes the cluster token").contains("plain HTTP",
            "run any program", "SLUICE_CONTROLLER_API_TOKEN"));

    assertThat(Exposure.controllerApiInClear("127.0.0.1", false)).isEmpty();
    assertThat(Exposure.controllerApiInClear("0.0.0.0", true)).isEmpty();
    assertThat(Exposure.controllerApiInClear("0.0.0.0", false)).hasValueSatisfying(
        sentence -> assertThat(sentence).startsWith("the controller API listens on 0.0.0.0 "
            + "over plain HTTP").contains("SLUICE_API_TLS_DIR"));
  }

  @Test
  void remotingBeyondLoopbackWithoutTlsIsFound() {
    Config plain = ConfigFactory.parseString("""
        sluice.cluster.tls-dir = ""
        pekko.remote.artery.bind.hostname = ""
        pekko.remote.artery.canonical.hostname = "10.0.0.5"
        """);
    assertThat(Exposure.remoting(plain)).hasValueSatisfying(sentence -> assertThat(sentence)
        .startsWith("cluster remoting listens on 10.0.0.5 without TLS"));
    assertThat(Exposure.remoting(ConfigFactory.parseString(
        "pekko.remote.artery.bind.hostname = 127.0.0.1").withFallback(plain))).isEmpty();
    assertThat(Exposure.remoting(ConfigFactory.parseString(
        "pekko.remote.artery.canonical.hostname = 127.0.0.1").withFallback(plain))).isEmpty();
    assertThat(Exposure.remoting(ConfigFactory.parseString(
        "sluice.cluster.tls-dir = /etc/sluice/tls").withFallback(plain))).isEmpty();
  }
}
