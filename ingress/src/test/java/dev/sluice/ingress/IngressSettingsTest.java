package dev.sluice.ingress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where API keys come from, and settings that are refused at start naming the key. */
class IngressSettingsTest {

  private static IngressSettings settings(String hocon) {
    return IngressSettings.fromConfig(ConfigFactory.parseString(hocon)
        .withFallback(ConfigFactory.load()).resolve());
  }

  @Test
  void apiKeysComeFromAListACommaSeparatedStringAndAFile(@TempDir Path dir) throws Exception {
    assertThat(settings("").apiKeys().enabled()).as("off by default").isFalse();
    assertThat(settings("sluice.ingress.api-keys = [k1, k2]").apiKeys().size()).isEqualTo(2);
    assertThat(settings("sluice.ingress.api-keys = \"k1, k2,, k3 \"").apiKeys().size())
        .isEqualTo(3);
    Path file = dir.resolve("keys");
    Files.writeString(file, "# team keys\nk4\n\n  k5  \nk1\n");
    IngressSettings both = settings("sluice.ingress.api-keys = [k1]\n"
        + "sluice.ingress.api-keys-file = \"" + file + "\"");
    assertThat(both.apiKeys().size()).as("k1, k4, k5").isEqualTo(3);
    assertThat(both.apiKeys().accepts("Bearer k5")).isTrue();
    assertThat(both.apiKeys().accepts("bearer k4")).isTrue();
    assertThat(both.apiKeys().accepts("Bearer k6")).isFalse();
    assertThat(both.apiKeys().accepts(null)).isFalse();
    assertThat(both.apiKeys().toString()).doesNotContain("k1");
  }

  @Test
  void badKeysAndRemovedKeysAreNamed(@TempDir Path dir) throws Exception {
    assertThatThrownBy(() -> settings("sluice.ingress.api-keys = [\"two words\"]"))
        .hasMessageStartingWith("sluice.ingress.api-keys: a key has a character");
    assertThatThrownBy(() -> settings("sluice.ingress.api-keys-file = \"" + dir.resolve("none")
        + "\"")).hasMessageStartingWith("sluice.ingress.api-keys-file: ");
    Path empty = dir.resolve("empty");
    java.nio.file.Files.writeString(empty, "# no key yet\n");
    assertThatThrownBy(() -> settings("sluice.ingress.api-keys-file = \"" + empty + "\""))
        .hasMessageContaining("holds no key");
    assertThatThrownBy(() -> settings("sluice.ingress.data-path = pekko-http"))
        .hasMessageStartingWith("sluice.ingress.data-path: removed");
    assertThatThrownBy(() -> settings("sluice.ingress.splice.head-timeout = 0s"))
        .hasMessage("sluice.ingress.splice.head-timeout: PT0S (expected: > 0)");
    assertThatThrownBy(() -> settings("sluice.ingress.splice.max-connections = 0"))
        .hasMessageStartingWith("sluice.ingress.splice.max-connections: 0");
  }

  @Test
  void theBufferBudgetDefaultsToAQuarterOfTheHeap() {
    assertThat(settings("").splice().maxBufferedBytes())
        .isEqualTo(Runtime.getRuntime().maxMemory() / 4);
    assertThat(settings("sluice.ingress.splice.max-buffered-request-bytes = 64 MiB").splice()
        .maxBufferedBytes()).isEqualTo(64L << 20);
  }
}
