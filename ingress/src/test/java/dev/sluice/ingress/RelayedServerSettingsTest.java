package dev.sluice.ingress;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.junit.jupiter.api.Test;

/**
 * The relayed path's Pekko HTTP server takes as many connections as the splice in front of it
 * (each completion in flight holds one), whatever Pekko's own limit says, and its body cap.
 */
class RelayedServerSettingsTest {

  @Test
  void theFrontsConnectionLimitIsTheServersAndTheBodyCapStays() {
    Config config = ConfigFactory.parseString("""
        pekko.http.server.max-connections = 2
        sluice.ingress.splice.max-connections = 5000
        sluice.ingress.max-request-bytes = 1 MiB
        """).withFallback(ConfigFactory.load()).resolve();

    ServerSettings server = IngressServer.relayedServerSettings(config,
        IngressSettings.fromConfig(config));

    assertThat(server.getMaxConnections()).isEqualTo(5000);
    assertThat(server.getParserSettings().getMaxContentLength())
        .isGreaterThanOrEqualTo(1024 * 1024);
  }
}
