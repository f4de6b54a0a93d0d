package dev.sluice.ingress.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A keys file read again on change: rotation without a restart, and never failing open. */
class ApiKeysTest {

  @Test
  void keysAddedToTheFileAreAcceptedAndKeysRemovedRefused(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("keys");
    Files.writeString(file, "old-key\nkept-key\n");
    ApiKeys keys = ApiKeys.withFile(List.of("config-key"), file);
    assertThat(keys.accepts("Bearer old-key")).isTrue();
    assertThat(keys.reload()).as("unchanged").isEmpty();

    Files.writeString(file, "# rotated\r\nkept-key\r\nnew-key\r\n");
    Optional<ApiKeys.Reload> reload = keys.reload();

    assertThat(reload).hasValueSatisfying(r -> {
      assertThat(r.changed()).isTrue();
      assertThat(r.warning()).isFalse();
      assertThat(r.message()).endsWith("changed: 3 keys accepted (were 3)")
          .doesNotContain("new-key").doesNotContain("kept-key");
    });
    assertThat(keys.accepts("Bearer new-key")).isTrue();
    assertThat(keys.accepts("Bearer kept-key")).isTrue();
    assertThat(keys.accepts("Bearer config-key")).as("the config's keys stay").isTrue();
    assertThat(keys.accepts("Bearer old-key")).isFalse();
    assertThat(keys.hexDigests()).hasSize(3).isSorted();
  }

  @Test
  void aFileThatCannotBeReadKeepsTheKeysAndSaysSoOnce(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("keys");
    Files.writeString(file, "key-1\n");
    ApiKeys keys = ApiKeys.withFile(List.of(), file);
    Files.delete(file);

    assertThat(keys.reload()).hasValueSatisfying(r -> assertThat(r.warning()).isTrue())
        .hasValueSatisfying(r -> assertThat(r.changed()).isFalse())
        .hasValueSatisfying(r -> assertThat(r.message()).contains("cannot be read")
            .endsWith("the 1 keys in effect stay"));
    assertThat(keys.reload()).as("the same problem again is not logged again").isEmpty();
    assertThat(keys.accepts("Bearer key-1")).isTrue();

    Files.writeString(file, "key 2 with spaces\n");
    assertThat(keys.reload()).hasValueSatisfying(r -> assertThat(r.message())
        .contains("holds a key that cannot travel in a header"));
    assertThat(keys.accepts("Bearer key-1")).isTrue();

    Files.writeString(file, "key-1\n");
    assertThat(keys.reload()).as("back as it was: nothing changed").isEmpty();
    Files.writeString(file, "key-3\n");
    assertThat(keys.reload()).hasValueSatisfying(r -> assertThat(r.warning()).isFalse());
    assertThat(keys.accepts("Bearer key-3")).isTrue();
  }

  @Test
  void aFileEmptiedLaterRefusesEveryRequestNeverLetsThemAllIn(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("keys");
    Files.writeString(file, "key-1\n");
    ApiKeys keys = ApiKeys.withFile(List.of(), file);
    Files.writeString(file, "# every key revoked\n");

    assertThat(keys.reload()).hasValueSatisfying(r -> {
      assertThat(r.warning()).isTrue();
      assertThat(r.changed()).isTrue();
      assertThat(r.message()).contains("holds no key now: every request is refused");
    });
    assertThat(keys.enabled()).as("keys are still required").isTrue();
    assertThat(keys.size()).isZero();
    assertThat(keys.accepts("Bearer key-1")).isFalse();
    assertThat(keys.accepts(null)).isFalse();
  }

  @Test
  void aFileWithoutAKeyAtStartIsRefusedNamingTheSetting(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("keys");
    Files.writeString(file, "# nothing yet\n\n");
    assertThatThrownBy(() -> ApiKeys.withFile(List.of(), file))
        .hasMessage("sluice.ingress.api-keys-file: " + file + " holds no key (expected: one key "
            + "per line; to let every request in, leave api-keys-file unset)");
    assertThat(ApiKeys.of(List.of("k")).reload()).as("no file: nothing to reload").isEmpty();
    assertThat(ApiKeys.NONE.enabled()).isFalse();
  }
}
