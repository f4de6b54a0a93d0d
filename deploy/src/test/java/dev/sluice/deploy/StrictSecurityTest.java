package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.sluice.controller.api.ApiGuard;
import dev.sluice.ingress.IngressSettings;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A node's unguarded listeners: which count for its roles, the warnings, and with
 * {@code sluice.security.strict} the refusal.
 */
class StrictSecurityTest {

  private static final Set<Role> ALL = EnumSet.of(Role.CONTROL, Role.INGRESS, Role.REPLICA);

  /** Every listener beyond loopback, nothing guarded. */
  private static final Config OPEN = ConfigFactory.parseString("""
      sluice.security.strict = on
      sluice.cluster.tls-dir = ""
      pekko.remote.artery.bind.hostname = ""
      pekko.remote.artery.canonical.hostname = "10.0.0.5"
      sluice.replica.bind-host = ""
      sluice.controller.api.host = "0.0.0.0"
      sluice.router.http.host = "0.0.0.0"
      sluice.ingress.host = "0.0.0.0"
      sluice.ingress.api-keys = ""
      sluice.ingress.api-keys-file = ""
      sluice.haproxy.port = -1
      """).withFallback(ConfigFactory.load()).resolve();

  @Test
  void everyUnguardedListenerIsNamedInOneRefusal() {
    assertThat(StrictSecurity.findings(OPEN, ALL, false, ApiGuard.Credential.NONE, false,
        ingress(OPEN)))
        .hasSize(6)
        .anyMatch(f -> f.startsWith("cluster remoting listens on 10.0.0.5 without TLS"))
        .anyMatch(f -> f.startsWith("the controller API listens on 0.0.0.0 without a token"))
        .anyMatch(f -> f.startsWith("the controller API listens on 0.0.0.0 over plain HTTP"))
        .anyMatch(f -> f.startsWith("every replica endpoint listens on 10.0.0.5 without a "
            + "cluster token"))
        .anyMatch(f -> f.startsWith("the router's /internal/route listens on 0.0.0.0"))
        .anyMatch(f -> f.startsWith("the ingress listens on 0.0.0.0 without API keys"));
    assertThatThrownBy(() -> StrictSecurity.enforce(OPEN, ALL, false, ApiGuard.Credential.NONE,
        false, ingress(OPEN)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("sluice.security.strict (env SLUICE_SECURITY_STRICT) is on, and "
            + "this node would listen beyond loopback unguarded:\n  1. cluster remoting")
        .hasMessageContaining("\n  6. the ingress listens on 0.0.0.0")
        .hasMessageEndingWith("\n(expected: every listener beyond loopback guarded, or "
            + "sluice.security.strict = off)");
  }

  @Test
  void onlyTheListenersOfTheNodesRolesCount() {
    assertThat(StrictSecurity.findings(OPEN, EnumSet.of(Role.REPLICA), false,
        ApiGuard.Credential.NONE, false, Optional.empty()))
        .hasSize(2).allMatch(f -> f.startsWith("cluster remoting")
            || f.startsWith("every replica endpoint"));
  }

  @Test
  void guardedListenersPass() {
    Config guarded = ConfigFactory.parseString("""
        sluice.cluster.tls-dir = "/etc/sluice/remoting-tls"
        sluice.ingress.api-keys = "key-1"
        """).withFallback(OPEN);
    assertThat(StrictSecurity.findings(guarded, ALL, true, ApiGuard.Credential.API_TOKEN, true,
        ingress(guarded)))
        .isEmpty();
    assertThatCode(() -> StrictSecurity.enforce(guarded, ALL, true, ApiGuard.Credential.API_TOKEN,
        true, ingress(guarded))).doesNotThrowAnyException();
  }

  @Test
  void offOrOnLoopbackStartsAsBeforeAndOffWarnsAboutEach() {
    Logger logger = (Logger) LoggerFactory.getLogger(StrictSecurity.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      assertThatCode(() -> StrictSecurity.enforce(ConfigFactory.parseString(
          "sluice.security.strict = off").withFallback(OPEN), ALL, false,
          ApiGuard.Credential.NONE, false, ingress(OPEN))).doesNotThrowAnyException();
    } finally {
      logger.detachAppender(appender);
    }
    assertThat(appender.list).hasSize(6).allMatch(event -> event.getLevel() == Level.WARN
        && event.getFormattedMessage().startsWith("SECURITY: "));
    Config loopback = ConfigFactory.parseString("sluice.security.strict = on")
        .withFallback(ConfigFactory.load()).resolve();
    assertThat(StrictSecurity.findings(loopback, ALL, false, ApiGuard.Credential.NONE, false,
        ingress(loopback)))
        .isEmpty();
  }

  private static Optional<IngressSettings> ingress(Config config) {
    return Optional.of(IngressSettings.fromConfig(config));
  }
}
