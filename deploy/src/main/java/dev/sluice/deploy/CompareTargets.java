package dev.sluice.deploy;

import dev.sluice.bench.ServerCpu;
import dev.sluice.deploy.haproxy.HaproxyBinary;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The three targets of {@code sluice bench compare}, served by separate node processes (so that
 * the load generator's JVM does not share a heap or GC with what it measures):
 * (a) the replica's own endpoint, (b) the ingress on the direct path, (c) an ingress on the
 * relayed path, and optionally (d) HAProxy run by the ingress node with Sluice's Lua action and
 * (e) a plain HAProxy with no routing (the floor a data plane's CPU is held against), all in
 * front of the same simulated replica. It knows every serving process, so it can tell what CPU
 * each used ({@link #cpu}).
 */
final class CompareTargets implements AutoCloseable {

  /** The names {@link #cpu} gives its groups of processes (the report's column headings). */
  static final String REPLICA_NODE = "replica node";
  static final String INGRESS_NODE = "ingress node";
  static final String LUA_HAPROXY = "HAProxy+Lua";
  static final String PLAIN_HAPROXY = "plain HAProxy";

  private final List<Process> processes;
  private final Path log;
  final URI replica;
  final URI direct;
  final URI relayed;
  /** HAProxy with Sluice's generated config and Lua action, when asked for. */
  final java.util.Optional<URI> haproxy;
  /** A plain HAProxy straight to the replica (no Lua, no router), when asked for. */
  final java.util.Optional<URI> plainHaproxy;

  private CompareTargets(List<Process> processes, Path log, int replica, int direct,
      int relayed, int haproxy, int plainHaproxy) {
    this.processes = processes;
    this.log = log;
    this.replica = URI.create("http://127.0.0.1:" + replica);
    this.direct = URI.create("http://127.0.0.1:" + direct);
    this.relayed = URI.create("http://127.0.0.1:" + relayed);
    this.haproxy = haproxy < 0 ? java.util.Optional.empty()
        : java.util.Optional.of(URI.create("http://127.0.0.1:" + haproxy));
    this.plainHaproxy = plainHaproxy < 0 ? java.util.Optional.empty()
        : java.util.Optional.of(URI.create("http://127.0.0.1:" + plainHaproxy));
  }

  /** Where the control singletons (the router among them) run. */
  enum RouterNode {
    /** On the ingress node: the ingress asks the router locally. */
    INGRESS,
    /** On the replica node: every route is an Artery round trip between processes. */
    REPLICA;

    static RouterNode parse(String value) {
      return switch (value) {
        case "ingress" -> INGRESS;
        case "replica" -> REPLICA;
        default -> throw new IllegalArgumentException("--router-node: " + value
            + " (expected: ingress or replica)");
      };
    }
  }

  /**
   * Two processes, as in a real deployment: a replica node (the simulated replica and its
   * endpoint, the limit), and an ingress node serving both paths, so that relayed tokens really
   * cross nodes (Artery and the Kryo serializer) as direct tokens cross HTTP. The control role
   * goes where {@code routerNode} says. With {@code withHaproxy}, the ingress node also runs
   * HAProxy (sluice.haproxy) asking the router's {@code /internal/route}; with {@code
   * withPlainHaproxy} a plain HAProxy is started in front of the replica as well.
   */
  static CompareTargets start(int ttftMs, int itlMs, int maxTokens, RouterNode routerNode,
      boolean withHaproxy, boolean withPlainHaproxy) throws Exception {
    int haproxy = withHaproxy ? freePort() : -1;
    int plainHaproxy = withPlainHaproxy ? freePort() : -1;
    int routerEndpoint = withHaproxy ? freePort() : -1;
    int replica = freePort();
    int direct = freePort();
    int relayed = freePort();
    int remoting = freePort();
    Path config = Files.createTempFile("sluice-compare", ".yaml");
    Files.writeString(config, """
        applications:
          - name: bench
            llm_configs:
              - model_loading_config: {model_id: sluice-sim}
                engine_config: {type: simulated, ttft_ms: %d, itl_ms: %d, default_max_tokens: %d,
                                max_num_seqs: 4096}
                deployment_config: {num_replicas: 1, max_ongoing_requests: 4096}
        """.formatted(ttftMs, itlMs, maxTokens));
    config.toFile().deleteOnExit();
    Path log = Files.createTempFile("sluice-compare", ".log");
    boolean controlWithIngress = routerNode == RouterNode.INGRESS;
    ProcessBuilder replicas = controlWithIngress
        ? node("replica", "--port", String.valueOf(remoting))
        : node("control,replica", "--port", String.valueOf(remoting),
            "--config", config.toString());
    replicas.environment().put("SLUICE_REPLICA_PORT_RANGE", String.valueOf(replica));
    replicas.environment().put("SLUICE_ROUTER_PORT",
        String.valueOf(controlWithIngress ? -1 : routerEndpoint));
    replicas.environment().put("SLUICE_INGRESS_PORT", "-1");
    ProcessBuilder ingress = controlWithIngress
        ? node("control,ingress", "--port", "0", "--seed-nodes", "127.0.0.1:" + remoting,
            "--config", config.toString())
        : node("ingress", "--port", "0", "--seed-nodes", "127.0.0.1:" + remoting);
    ingress.environment().put("SLUICE_ROUTER_PORT",
        String.valueOf(controlWithIngress ? routerEndpoint : -1));
    if (withHaproxy) {
      ingress.environment().put("SLUICE_HAPROXY_PORT", String.valueOf(haproxy));
      ingress.environment().put("SLUICE_HAPROXY_ROUTER", "127.0.0.1:" + routerEndpoint);
    }
    ingress.environment().put("SLUICE_INGRESS_PORT", String.valueOf(direct));
    ingress.environment().put("SLUICE_INGRESS_RELAYED_PORT", String.valueOf(relayed));
    System.err.println("Starting the targets (a replica node and an ingress node, router on the "
        + routerNode.name().toLowerCase(java.util.Locale.ROOT) + " node, log: " + log + ")...");
    List<ProcessBuilder> builders = new java.util.ArrayList<>(List.of(replicas, ingress));
    if (withPlainHaproxy) {
      builders.add(plainHaproxy(plainHaproxy, replica));
    }
    List<Process> started = new java.util.ArrayList<>();
    for (ProcessBuilder builder : builders) {
      builder.redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      started.add(builder.start());
    }
    CompareTargets targets = new CompareTargets(started, log, replica, direct, relayed,
        haproxy, plainHaproxy);
    try {
      targets.awaitReady(Duration.ofSeconds(120));
    } catch (Exception e) {
      targets.close();
      throw e;
    }
    return targets;
  }

  private static ProcessBuilder node(String roles, String... options) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new java.util.ArrayList<>(List.of(java, "-Xmx1g", "-cp",
        System.getProperty("java.class.path"), SluiceCli.class.getName(), "node", "--roles",
        roles, "--host", "127.0.0.1"));
    command.addAll(List.of(options));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("SLUICE_METRICS_PORT", "0");  // two nodes on one machine
    return builder;
  }

  /**
   * HAProxy in front of the replica with nothing of Sluice's: no Lua, no router, one server.
   * {@code option http-no-delay}, as any token stream needs (HAProxy otherwise holds small
   * writes back, sending tokens late and in lumps: see docs/BENCHMARKS.md, issue 13).
   */
  private static ProcessBuilder plainHaproxy(int port, int replica) throws IOException {
    Path binary = HaproxyBinary.locate("haproxy").path();
    Path config = Files.createTempFile("sluice-compare-haproxy", ".cfg");
    config.toFile().deleteOnExit();
    Files.writeString(config, """
        global
          maxconn 8000
        defaults
          mode http
          timeout connect 5s
          timeout client 600s
          timeout server 600s
          option http-no-delay
        frontend plain
          bind 127.0.0.1:%d
          default_backend replica
        backend replica
          server replica 127.0.0.1:%d
        """.formatted(port, replica));
    return new ProcessBuilder(binary.toString(), "-db", "-f", config.toString());
  }

  /**
   * The CPU of every serving process by role: the replica node, the ingress node (the router
   * with it when it has the control role), the HAProxy it runs (its child processes) and the
   * plain HAProxy, those last two when started.
   */
  ServerCpu cpu() {
    Map<String, Supplier<Stream<ProcessHandle>>> groups = new LinkedHashMap<>();
    groups.put(REPLICA_NODE, () -> Stream.of(processes.get(0).toHandle()));
    groups.put(INGRESS_NODE, () -> Stream.of(processes.get(1).toHandle()));
    if (haproxy.isPresent()) {
      groups.put(LUA_HAPROXY, () -> processes.get(1).descendants());
    }
    if (plainHaproxy.isPresent()) {
      groups.put(PLAIN_HAPROXY, () -> Stream.of(processes.get(2).toHandle()));
    }
    return new ProcessCpu(groups);
  }

  private void awaitReady(Duration deadline) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long end = System.nanoTime() + deadline.toNanos();
    String probe = "{\"messages\":[{\"role\":\"user\",\"content\":\"ready?\"}],\"max_tokens\":1}";
    List<URI> all = new java.util.ArrayList<>(List.of(replica, direct, relayed));
    haproxy.ifPresent(all::add);
    plainHaproxy.ifPresent(all::add);
    for (URI target : all) {
      while (true) {
        if (processes.stream().anyMatch(p -> !p.isAlive())) {
          throw new IllegalStateException("a target process exited; see " + log);
        }
        try {
          HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                  target.resolve("/v1/chat/completions"))
              .POST(HttpRequest.BodyPublishers.ofString(probe))
              .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
          if (response.statusCode() == 200) {
            break;
          }
        } catch (IOException e) {
          // not listening yet
        }
        if (System.nanoTime() > end) {
          throw new IllegalStateException("targets not ready within " + deadline.toSeconds()
              + " s; see " + log);
        }
        TimeUnit.MILLISECONDS.sleep(200);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (Process process : processes) {
      process.destroy();
    }
    for (Process process : processes) {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }
}
