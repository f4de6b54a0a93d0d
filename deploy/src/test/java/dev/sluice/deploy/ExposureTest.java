package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sluice.controller.api.ApiGuard;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

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

  @Test
  void theControllerApiWarningSaysItsWritersChooseWhatReplicaNodesRun() {
    Logger logger = (Logger) LoggerFactory.getLogger(Exposure.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      assertThat(Exposure.warnControllerApi("127.0.0.1", ApiGuard.Credential.NONE, false))
          .isFalse();
      assertThat(Exposure.warnControllerApi("0.0.0.0", ApiGuard.Credential.API_TOKEN, true))
          .isFalse();
      assertThat(appender.list).isEmpty();

      assertThat(Exposure.warnControllerApi("0.0.0.0", ApiGuard.Credential.NONE, true)).isTrue();
      assertThat(appender.list).singleElement().extracting(ILoggingEvent::getFormattedMessage)
          .asString().startsWith("SECURITY: the controller API listens on 0.0.0.0 without a "
              + "token").contains("run any program", "SLUICE_CONTROLLER_API_TOKEN");
      appender.list.clear();

      assertThat(Exposure.warnControllerApi("0.0.0.0", ApiGuard.Credential.CLUSTER_TOKEN, true))
          .isTrue();
      assertThat(appender.list).singleElement().extracting(ILoggingEvent::getFormattedMessage)
          .asString().startsWith("SECURITY: the controller API listens on 0.0.0.0 and takes the "
              + "cluster token").contains("plain HTTP", "run any program",
              "SLUICE_CONTROLLER_API_TOKEN");
      appender.list.clear();

      assertThat(Exposure.warnControllerApi("0.0.0.0", ApiGuard.Credential.API_TOKEN, false))
          .isTrue();
      assertThat(appender.list).singleElement().extracting(ILoggingEvent::getFormattedMessage)
          .asString().startsWith("SECURITY: the controller API listens on 0.0.0.0 over plain "
              + "HTTP").contains("SLUICE_API_TLS_DIR");
    } finally {
      logger.detachAppender(appender);
    }
  }

  @Test
  void remotingBeyondLoopbackWithoutTlsIsWarnedAbout() {
    com.typesafe.config.Config plain = com.typesafe.config.ConfigFactory.parseString("""
        sluice.cluster.tls-dir = ""
        pekko.remote.artery.bind.hostname = ""
        pekko.remote.artery.canonical.hostname = "10.0.0.5"
        """);
    assertThat(Exposure.warnRemoting(plain)).isTrue();
    assertThat(Exposure.warnRemoting(com.typesafe.config.ConfigFactory.parseString(
        "pekko.remote.artery.bind.hostname = 127.0.0.1").withFallback(plain))).isFalse();
    assertThat(Exposure.warnRemoting(com.typesafe.config.ConfigFactory.parseString(
        "pekko.remote.artery.canonical.hostname = 127.0.0.1").withFallback(plain))).isFalse();
    assertThat(Exposure.warnRemoting(com.typesafe.config.ConfigFactory.parseString(
        "sluice.cluster.tls-dir = /etc/sluice/tls").withFallback(plain))).isFalse();
  }
}
