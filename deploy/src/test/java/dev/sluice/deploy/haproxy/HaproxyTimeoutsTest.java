package dev.sluice.deploy.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HAProxy's timeouts follow the ingress's settings, checked by the real HAProxy. */
class HaproxyTimeoutsTest {

  private static Config ingress(String settings) {
    return ConfigFactory.parseString(settings).withFallback(ConfigFactory.defaultReference());
  }

  private static RenderSettings settings(HaproxyTimeouts timeouts) {
    return new RenderSettings("127.0.0.1", 8080, "127.0.0.1", 8500, 5, "",
        "x-session-id", Map.of("/", "llm")).withTimeouts(timeouts);
  }

  @Test
  void theDefaultsAreTheIngresssDefaults() {
    Config splice = ConfigFactory.defaultReference().getConfig("sluice.ingress.splice");
    String config = HaproxyConfig.render(
        new RenderSettings("127.0.0.1", 8080, "127.0.0.1", 8500, 5, "",
            "x-session-id", Map.of("/", "llm")), List.of(), Path.of("x.lua"));

    assertThat(config)
        .contains("  timeout http-request "
            + splice.getDuration("head-timeout").toSeconds() + "s\n")
        .contains("  timeout http-keep-alive "
            + splice.getDuration("client-idle-timeout").toSeconds() + "s\n")
        .contains("  timeout client "
            + splice.getDuration("stream-idle-timeout").toSeconds() + "s\n")
        .contains("  timeout server "
            + splice.getDuration("response-timeout").toSeconds() + "s\n");
  }

  @Test
  void anOperatorsSettingsReachTheConfigAndHaproxysOwnAnswers(@TempDir Path dir)
      throws Exception {
    HaproxyTimeouts timeouts = HaproxyTimeouts.fromIngress(ingress("""
        sluice.ingress.splice.head-timeout = 1500ms
        sluice.ingress.splice.client-idle-timeout = 3s
        sluice.ingress.splice.stream-idle-timeout = 45s
        sluice.ingress.splice.response-timeout = 2m
        """));
    Path lua = dir.resolve("sluice_route.lua");
    HaproxyConfig.writeFiles(lua, timeouts);
    String config = HaproxyConfig.render(settings(timeouts), List.of(), lua);

    assertThat(config)
        .contains("  timeout http-request 1500ms\n")
        .contains("  http-request wait-for-body time 1500ms\n")
        .contains("  timeout http-keep-alive 3s\n")
        .contains("  timeout client 45s\n")
        .contains("  timeout server 120s\n");
    assertThat(Files.readString(dir.resolve("sluice_error_408.http")))
        .contains("The request did not arrive within 1500 ms");
    assertThat(Files.readString(dir.resolve("sluice_error_504.http")))
        .contains("The replica did not answer within 120 s");
    Path file = dir.resolve("haproxy.cfg");
    Files.writeString(file, config);
    HaproxyProcess.check(HaproxyBinary.locate("haproxy"), file);
  }

  /** A system property (how `sluice haproxy render` is given settings) is not a default. */
  @Test
  void theDefaultsAreNotTheSystemProperties() {
    System.setProperty("sluice.ingress.splice.response-timeout", "30d");
    ConfigFactory.invalidateCaches();
    try {
      assertThat(HaproxyTimeouts.reference().server()).isEqualTo(Duration.ofSeconds(600));
      assertThatThrownBy(() -> HaproxyTimeouts.fromIngress(ConfigFactory.load()))
          .hasMessageStartingWith("sluice.ingress.splice.response-timeout: PT720H");
    } finally {
      System.clearProperty("sluice.ingress.splice.response-timeout");
      ConfigFactory.invalidateCaches();
    }
  }

  @Test
  void aTimeoutHaproxyCannotTakeIsRefusedNamingTheSetting() {
    assertThatThrownBy(() -> HaproxyTimeouts.fromIngress(
        ingress("sluice.ingress.splice.stream-idle-timeout = 0s")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("sluice.ingress.splice.stream-idle-timeout: PT0S");
    assertThatThrownBy(() -> HaproxyTimeouts.fromIngress(
        ingress("sluice.ingress.splice.head-timeout = 500us")))
        .hasMessageStartingWith("sluice.ingress.splice.head-timeout: ");
    assertThatThrownBy(() -> HaproxyTimeouts.fromIngress(
        ingress("sluice.ingress.splice.response-timeout = 30d")))
        .hasMessageContaining("sluice.ingress.splice.response-timeout: PT720H")
        .hasMessageContaining("2147483647ms");
    assertThat(HaproxyTimeouts.fromIngress(ingress(
        "sluice.ingress.splice.response-timeout = 24d")).server())
        .isEqualTo(Duration.ofDays(24));
  }
}
