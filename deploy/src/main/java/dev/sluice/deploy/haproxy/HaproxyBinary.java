package dev.sluice.deploy.haproxy;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code haproxy} program Sluice runs: found on the PATH (and in the sbin directories, where
 * Debian installs it but a user's PATH often does not reach), and checked to be HAProxy 2.6 or
 * newer built with Lua. Every failure says what to install.
 */
public record HaproxyBinary(Path path, String version, boolean prometheusExporter) {

  private static final Pattern VERSION = Pattern.compile("HAProxy version (\\d+)\\.(\\d+)\\S*");
  private static final List<String> SBIN = List.of("/usr/local/sbin", "/usr/sbin", "/sbin");
  private static final String INSTALL = "install HAProxy 2.6 or newer with Lua and PCRE "
      + "(Debian/Ubuntu: apt-get install haproxy; RHEL: dnf install haproxy)";

  /** Finds and checks {@code name} (a bare name is looked up on the PATH; a path is used as is). */
  public static HaproxyBinary locate(String name) {
    Path path = find(name, System.getenv().getOrDefault("PATH", "")).orElseThrow(() ->
        new IllegalStateException("No '" + name + "' found on the PATH or in " + SBIN
            + ": " + INSTALL + ", or set sluice.haproxy.binary to its path"));
    String output = versionOutput(path);
    Matcher matcher = VERSION.matcher(output);
    if (!matcher.find()) {
      throw new IllegalStateException(path + " -vv does not print an HAProxy version: " + INSTALL);
    }
    String version = matcher.group(0).substring("HAProxy version ".length());
    int major = Integer.parseInt(matcher.group(1));
    int minor = Integer.parseInt(matcher.group(2));
    if (major < 2 || (major == 2 && minor < 6)) {
      throw new IllegalStateException(path + " is HAProxy " + version + ", too old: " + INSTALL);
    }
    if (!output.contains("Built with Lua")) {
      throw new IllegalStateException(path + " (HAProxy " + version + ") is built without Lua, "
          + "which the routing action needs: " + INSTALL);
    }
    if (!output.contains("Built with PCRE")) {
      throw new IllegalStateException(path + " (HAProxy " + version + ") is built without PCRE, "
          + "whose regular expressions the config uses: " + INSTALL);
    }
    return new HaproxyBinary(path, version,
        output.contains("Built with the Prometheus exporter"));
  }

  static Optional<Path> find(String name, String searchPath) {
    if (name.contains(File.separator)) {
      Path given = Path.of(name);
      return Files.isExecutable(given) ? Optional.of(given) : Optional.empty();
    }
    List<String> dirs = new ArrayList<>(List.of(searchPath.split(File.pathSeparator)));
    dirs.addAll(SBIN);
    return dirs.stream().filter(dir -> !dir.isEmpty()).map(dir -> Path.of(dir, name))
        .filter(Files::isExecutable).findFirst();
  }

  private static String versionOutput(Path path) {
    try {
      Process process = new ProcessBuilder(path.toString(), "-vv").redirectErrorStream(true)
          .start();
      byte[] out = process.getInputStream().readAllBytes();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
      return new String(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot run " + path + " -vv: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while checking " + path, e);
    }
  }
}
