package dev.sluice.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReplicaNodeSettingsTest {

  private static Config with(String key, String value) {
    return ConfigFactory.parseString("sluice.replica." + key + " = " + value)
        .withFallback(ConfigFactory.load());
  }

  @Test
  void theDefaultsLookAtLoadsEvery50MsAndSendThemAllEverySecond() {
    ReplicaNodeSettings settings = ReplicaNodeSettings.fromConfig(ConfigFactory.load(), "h");
    assertThat(settings.loadReportInterval()).isEqualTo(Duration.ofMillis(50));
    assertThat(settings.loadReportHeartbeat()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aLoadReportPeriodThatIsNotPositiveIsRefusedByItsKey() {
    for (String key : new String[] {"load-report-interval", "load-report-heartbeat"}) {
      for (String value : new String[] {"0s", "-50ms"}) {
        assertThatThrownBy(() -> ReplicaNodeSettings.fromConfig(with(key, value), "h"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("sluice.replica." + key + " must be positive");
      }
    }
  }
}
