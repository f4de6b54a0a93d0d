package dev.sluice.deploy;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.deploy.haproxy.HaproxyConfig;
import dev.sluice.deploy.haproxy.RenderSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real HAProxy (Debian's package, installed by {@code ./run-tests}) on loopback: in front of
 * one backend, for differential tests, or with Sluice's generated config. Runs in the
 * foreground as a child process; closing it stops it.
 */
final class Haproxy implements AutoCloseable {

  static final String BINARY = "/usr/sbin/haproxy";

  private final Process process;
  private final Path dir;

  private Haproxy(Process process, Path dir) {
    this.process = process;
    this.dir = dir;
  }

  static boolean installed() {
    return Files.isExecutable(Path.of(BINARY));
  }

  /** Listens on {@code port} and sends every request to {@code backendPort}, HAProxy's way. */
  static Haproxy inFrontOf(int port, int backendPort) throws Exception {
    if (!installed()) {
      throw new IllegalStateException(BINARY + " is missing: ./run-tests installs it (Debian "
          + "package haproxy)");
    }
    Path dir = Files.createTempDirectory("sluice-haproxy");
    Path config = dir.resolve("haproxy.cfg");
    Files.writeString(config, """
        global
          maxconn 1000
        defaults
          mode http
          timeout connect 2s
          timeout client 10s
          timeout server 10s
          timeout http-request 5s
        frontend edge
          bind 127.0.0.1:%d
          default_backend replica
        backend replica
          server r1 127.0.0.1:%d
        """.formatted(port, backendPort));
    return start(dir, config, port);
  }

  /**
   * HAProxy with Sluice's generated config and Lua action, in front of {@code of}'s replicas,
   * listening where {@code settings} say.
   */
  static Haproxy rendered(SluiceNode of, RenderSettings settings) throws Exception {
    Path dir = Files.createTempDirectory("sluice-haproxy-plane");
    Path lua = dir.resolve("sluice_route.lua");
    HaproxyConfig.writeFiles(lua, settings.timeouts());
    return withConfig(dir, HaproxyConfig.render(settings, replicas(of), lua),
        settings.bindPort());
  }

  /** {@code of}'s replicas, as HAProxy's config names them. */
  static List<HaproxyConfig.Replica> replicas(SluiceNode of) {
    return of.ingressView().all().stream().map(ReplicaSet::replicas)
        .flatMap(List::stream)
        .map((ReplicaInfo r) -> new HaproxyConfig.Replica(r.id().toString(), r.host(), r.port()))
        .toList();
  }

  /** Each of {@code of}'s applications by its route prefix. */
  static Map<String, String> routes(SluiceNode of) {
    Map<String, String> routes = new HashMap<>();
    of.ingressView().all().forEach(set -> routes.put(set.routePrefix(), set.deployment().app()));
    return routes;
  }

  /** Runs {@code config} (written into its own directory), listening on {@code port}. */
  static Haproxy withConfig(Path dir, String config, int port) throws Exception {
    if (!installed()) {
      throw new IllegalStateException(BINARY + " is missing: ./run-tests installs it (Debian "
          + "package haproxy)");
    }
    Path file = dir.resolve("haproxy.cfg");
    Files.writeString(file, config);
    return start(dir, file, port);
  }

  private static Haproxy start(Path dir, Path config, int port) throws Exception {
    Process process = new ProcessBuilder(BINARY, "-db", "-f", config.toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("haproxy.log").toFile()).start();
    Haproxy haproxy = new Haproxy(process, dir);
    haproxy.awaitListening(port, Duration.ofSeconds(10));
    return haproxy;
  }

  private void awaitListening(int port, Duration deadline) throws Exception {
    long end = System.nanoTime() + deadline.toNanos();
    while (true) {
      try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
        return;
      } catch (IOException notYet) {
        if (!process.isAlive() || System.nanoTime() > end) {
          String log = Files.readString(dir.resolve("haproxy.log"));
          close();
          throw new IllegalStateException("HAProxy did not start: " + log);
        }
        process.waitFor(50, TimeUnit.MILLISECONDS);
      }
    }
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    try (var files = Files.walk(dir)) {  // its directory goes with it: no temp dirs left behind
      files.sorted(java.util.Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
    }
  }
}
