package dev.sluice.deploy;

import com.typesafe.config.ConfigFactory;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice local}: the embedded default, one JVM with every role. */
@Command(name = "local", mixinStandardHelpOptions = true,
    description = "Run a one-JVM cluster (control, ingress and replica roles) with simulated "
        + "replicas and print the URLs to try; with --nodes N, N node processes on loopback "
        + "instead. Ctrl-C stops it cleanly.")
final class LocalCommand implements Callable<Integer> {

  @Option(names = "--config", paramLabel = "FILE",
      description = "Application YAML/JSON (default: model sluice-sim, 2 simulated replicas).")
  Path config;

  @Option(names = "--port",
      description = "Ingress port (default: sluice.ingress.port, 8000).")
  Integer port;

  @Option(names = "--router-port",
      description = "Port of POST /internal/route (default: sluice.router.http.port, 8500).")
  Integer routerPort;

  @Option(names = "--relayed-port",
      description = "Also serve the relayed path (the control group) on this port.")
  Integer relayedPort;

  @Option(names = "--remoting-port",
      description = "Pekko remoting port (default: 25520; 0 = any free port).")
  Integer remotingPort;

  @Option(names = "--api-port",
      description = "Controller API port (default: sluice.controller.api.port, 8265).")
  Integer apiPort;

  @Option(names = "--metrics-port", paramLabel = "PORT", description = "Port of GET /metrics "
      + "(default: 9464; with --nodes, node i uses PORT+i; -1 = none).")
  Integer metricsPort;

  @Option(names = "--haproxy-port", paramLabel = "PORT",
      description = "Also run HAProxy (the haproxy on the PATH, 2.6+ with Lua) on this port as "
          + "a second data plane in front of the same replicas and router (default: none).")
  Integer haproxyPort;

  @Option(names = "--nodes", paramLabel = "N",
      description = "Run N node processes instead of one JVM: control node(s) with an ingress "
          + "each, and replica nodes. Ports count up from --port, --api-port, --router-port "
          + "and --remoting-port, one per node.")
  Integer nodes;

  @Option(names = "--control-nodes", paramLabel = "K",
      description = "With --nodes: how many of them are control,ingress nodes (default: 1).")
  int controlNodes = 1;

  @Override
  public Integer call() throws Exception {
    var defaults = ConfigFactory.load();
    int ingress = port != null ? port : defaults.getInt("sluice.ingress.port");
    int api = apiPort != null ? apiPort : defaults.getInt("sluice.controller.api.port");
    int router = routerPort != null ? routerPort : defaults.getInt("sluice.router.http.port");
    int remoting = remotingPort != null ? remotingPort
        : defaults.getInt("pekko.remote.artery.canonical.port");
    int metrics = metricsPort != null ? metricsPort : defaults.getInt("sluice.metrics.port");
    // A bad file is named before any port check.
    AppConfigs.load(Optional.ofNullable(config),
        defaults.getInt("sluice.controller.max-replicas-per-deployment"));
    if (nodes != null) {
      if (relayedPort != null) {
        throw new IllegalArgumentException("--relayed-port: not with --nodes (one JVM only)");
      }
      return new LocalCluster(LocalCluster.plan(nodes, controlNodes, ingress, api, router,
          remoting, metrics), Optional.ofNullable(config),
          defaults.getDuration("sluice.ingress.drain-timeout"),
          haproxyPort == null ? -1 : haproxyPort).run(System.out);
    }
    Map<String, Integer> ports = new java.util.LinkedHashMap<>();
    ports.put("cluster remoting", remoting);
    ports.put("ingress", ingress);
    ports.put("controller API", api);
    ports.put("router endpoint", router);
    ports.put("relayed-path ingress", relayedPort == null ? -1 : relayedPort);
    ports.put("metrics", metrics);
    ports.put("HAProxy", haproxyPort == null ? -1 : haproxyPort);
    Ports.requireFree("127.0.0.1", ports);
    Map<String, Object> given = new HashMap<>();
    if (apiPort != null) {
      given.put("sluice.controller.api.port", apiPort);
    }
    if (port != null) {
      given.put("sluice.ingress.port", port);
    }
    if (routerPort != null) {
      given.put("sluice.router.http.port", routerPort);
    }
    if (relayedPort != null) {
      given.put("sluice.ingress.relayed-port", relayedPort);
    }
    if (remotingPort != null) {
      given.put("pekko.remote.artery.canonical.port", remotingPort);
    }
    if (metricsPort != null) {
      given.put("sluice.metrics.port", metricsPort);
    }
    if (haproxyPort != null) {
      given.put("sluice.haproxy.port", haproxyPort);
    }
    var overrides = ConfigFactory.parseMap(given);
    PrintStream out = System.out;
    out.println("Starting Sluice local (one JVM: control, ingress, replica)...");
    SluiceNode node = SluiceNode.start(NodeOptions.local(Optional.ofNullable(config), overrides));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> System.err.println(
        "Sluice local: stopping (coordinated shutdown)...")));
    ClusterReadiness.awaitReplicas(node, Duration.ofSeconds(60));
    Banner.print(out, node);
    node.system().getWhenTerminated().toCompletableFuture().get();
    out.println("Sluice local stopped; ports released.");
    return 0;
  }

}
