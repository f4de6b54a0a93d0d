package dev.sluice.deploy.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which {@code haproxy} Sluice accepts, and what it says about one it does not. */
class HaproxyBinaryTest {

  @TempDir Path dir;

  private Path fake(String name, String versionOutput) throws Exception {
    Path script = dir.resolve(name);
    Files.writeString(script, "#!/bin/sh\ncat <<'EOF'\n" + versionOutput + "\nEOF\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    return script;
  }

  @Test
  void aCurrentHaproxyWithLuaIsAccepted() throws Exception {
    Path script = fake("haproxy", "HAProxy version 2.8.5-1 2024/01/31 - https://haproxy.org/\n"
        + "Built with Lua version : Lua 5.4.4\nBuilt with PCRE2 version : 10.42 2022-12-11");
    HaproxyBinary binary = HaproxyBinary.locate(script.toString());
    assertThat(binary.version()).isEqualTo("2.8.5-1");
    assertThat(binary.path()).isEqualTo(script);
  }

  @Test
  void aTooOldOneIsRefusedSayingWhatToInstall() throws Exception {
    Path script = fake("haproxy", "HA-Proxy version 2.4.22 2023/02/14\nHAProxy version 2.4.22\n"
        + "Built with Lua version : Lua 5.3.6");
    assertThatThrownBy(() -> HaproxyBinary.locate(script.toString()))
        .hasMessageContaining("HAProxy 2.4.22, too old")
        .hasMessageContaining("install HAProxy 2.6 or newer with Lua");
  }

  @Test
  void oneWithoutLuaIsRefused() throws Exception {
    Path script = fake("haproxy", "HAProxy version 2.6.12\nBuilt without Lua");
    assertThatThrownBy(() -> HaproxyBinary.locate(script.toString()))
        .hasMessageContaining("built without Lua");
  }

  @Test
  void oneWithoutPcreIsRefused() throws Exception {
    Path script = fake("haproxy", "HAProxy version 2.6.12\nBuilt with Lua version : Lua 5.3.6");
    assertThatThrownBy(() -> HaproxyBinary.locate(script.toString()))
        .hasMessageContaining("built without PCRE");
  }

  @Test
  void somethingElseIsRefused() throws Exception {
    Path script = fake("haproxy", "nginx version: nginx/1.22.1");
    assertThatThrownBy(() -> HaproxyBinary.locate(script.toString()))
        .hasMessageContaining("does not print an HAProxy version");
  }

  @Test
  void aBareNameIsLookedUpOnThePathThenInSbin() throws Exception {
    Path script = fake("my-haproxy", "HAProxy version 2.6.12");
    assertThat(HaproxyBinary.find("my-haproxy", "/nonexistent:" + dir)).hasValue(script);
    assertThat(HaproxyBinary.find("my-haproxy", "/nonexistent")).isEmpty();
    assertThat(HaproxyBinary.find("no-such-haproxy", dir.toString())).isEmpty();
  }
}
