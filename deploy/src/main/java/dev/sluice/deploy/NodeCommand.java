package dev.sluice.deploy;

import com.typesafe.config.ConfigFactory;
import dev.sluice.deploy.haproxy.HaproxyDataPlane;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice node}: one node of a multi-node cluster. */
@Command(name = "node", mixinStandardHelpOptions = true,
    description = "Run one cluster node with the given roles. SIGTERM (or Ctrl-C) stops it "
        + "gracefully: its ingress drains, then it leaves the cluster.")
final class NodeCommand implements Callable<Integer> {

  @Option(names = "--roles", required = true, paramLabel = "ROLES",
      description = "Comma-separated: control, ingress, replica.")
  String roles;

  @Option(names = "--seed-nodes", paramLabel = "HOST:PORT,...",
      description = "Seed nodes to join (default: join itself, a one-node cluster).")
  String seedNodes;

  @Option(names = "--host", description = "Hostname other nodes reach this one by (cluster "
      + "remoting and replica endpoints). Does not expose the ingress: see --ingress-host.")
  String host;

  @Option(names = "--port", description = "Pekko remoting port (default: 25520).")
  Integer port;

  @Option(names = "--config", paramLabel = "FILE",
      description = "Application YAML/JSON (control nodes only). It seeds the desired state "
          + "when the cluster has none stored yet; a stored one wins (default: the built-in "
          + "sim app).")
  Path config;

  @Option(names = "--ingress-host", paramLabel = "HOST",
      description = "Interface the ingress listens on (default: sluice.ingress.host, "
          + "127.0.0.1). 0.0.0.0 exposes it to other machines: set API keys then.")
  String ingressHost;

  @Option(names = "--ingress-port", description = "Ingress port (default: 8000).")
  Integer ingressPort;

  @Option(names = "--api-port",
      description = "Controller API port on control nodes (default: 8265; -1 = none).")
  Integer apiPort;

  @Option(names = "--metrics-port", paramLabel = "PORT",
      description = "Port of GET /metrics, Prometheus format (default: 9464; -1 = none).")
  Integer metricsPort;

  @Option(names = "--router-port",
      description = "Port of POST /internal/route on control nodes and on ingress nodes with "
          + "HAProxy (default: 8500; -1 = none).")
  Integer routerPort;

  @Option(names = "--haproxy-port", paramLabel = "PORT",
      description = "Ingress nodes: also run HAProxy (2.6+ with Lua, from the PATH) on this port "
          + "as a second data plane, pinned by the router (default: none; see sluice.haproxy).")
  Integer haproxyPort;

  @Option(names = "--discovery", paramLabel = "METHOD",
      description = "How to find the cluster: seed-nodes (default; --seed-nodes), "
          + "kubernetes-api (pods labelled app=sluice, no seed nodes) or config "
          + "(--contact-points).")
  String discovery;

  @Option(names = "--contact-points", paramLabel = "HOST:PORT,...",
      description = "With --discovery config: the management endpoints of the nodes that may "
          + "form the cluster.")
  String contactPoints;

  @Option(names = "--required-contact-points", paramLabel = "N",
      description = "Contact points that must agree before a new cluster forms (default: 2).")
  Integer requiredContactPoints;

  @Option(names = "--management-port", paramLabel = "PORT",
      description = "Pekko Management endpoint (/ready, /alive, bootstrap; default: 7626). On "
          + "when --discovery is not seed-nodes.")
  Integer managementPort;

  @Option(names = "--exit-with-parent", hidden = true,
      description = "Stop when the process that started this one ends (sluice local --nodes).")
  boolean exitWithParent;

  @Override
  public Integer call() throws Exception {
    List<String> seeds = seedNodes == null ? List.of()
        : Arrays.stream(seedNodes.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    seeds.forEach(SluiceNode::seedAddress);
    java.util.Set<Role> parsed = Role.parse(roles);
    if (config != null && !parsed.contains(Role.CONTROL)) {
      throw new IllegalArgumentException("--config: only control nodes read the application "
          + "config (this node's roles: " + roles + ")");
    }
    Map<String, Object> given = new HashMap<>();
    put(given, "sluice.ingress.host", ingressHost);
    put(given, "sluice.ingress.port", ingressPort);
    put(given, "sluice.controller.api.port", apiPort);
    put(given, "sluice.router.http.port", routerPort);
    put(given, "sluice.metrics.port", metricsPort);
    put(given, "sluice.haproxy.port", haproxyPort);
    if (haproxyPort != null && !parsed.contains(Role.INGRESS)) {
      throw new IllegalArgumentException("--haproxy-port: only ingress nodes run HAProxy (this "
          + "node's roles: " + roles + ")");
    }
    put(given, "sluice.cluster.discovery", discovery);
    put(given, "sluice.cluster.contact-points", contactPoints);
    put(given, "sluice.cluster.required-contact-points", requiredContactPoints);
    put(given, "sluice.cluster.management.port", managementPort);
    NodeOptions options = new NodeOptions(parsed, Optional.ofNullable(host),
        Optional.ofNullable(port), seeds, Optional.ofNullable(config),
        ConfigFactory.parseMap(given));
    com.typesafe.config.Config resolved = SluiceNode.config(options);
    if (ClusterFormation.discovery(resolved) != ClusterFormation.Discovery.SEED_NODES
        && !seeds.isEmpty()) {
      throw new IllegalArgumentException("--seed-nodes and --discovery "
          + resolved.getString("sluice.cluster.discovery") + " exclude each other: the "
          + "bootstrap finds the nodes itself");
    }
    requirePortsFree(resolved, parsed);
    // Not for a child of `sluice local --nodes`: it is never restarted on its own.
    if (!exitWithParent && !seeds.isEmpty() && ClusterFormation.onlyItself(
        seeds.stream().map(SluiceNode::seedAddress).toList(), SluiceNode.seedAddress(
            resolved.getString("pekko.remote.artery.canonical.hostname") + ":"
                + resolved.getInt("pekko.remote.artery.canonical.port")))) {
      System.err.println("sluice: " + ClusterFormation.onlyItselfWarning(seeds.get(0)));
    }
    SluiceNode node = SluiceNode.start(options);
    if (exitWithParent) {
      ProcessHandle.current().parent().ifPresent(parent -> parent.onExit()
          .thenRun(() -> node.system().terminate()));
    }
    System.out.println("Sluice node " + node.system().address() + " up with roles " + roles);
    node.ingressPort().ifPresent(p -> System.out.println("  Ingress: http://"
        + node.system().settings().config().getString("sluice.ingress.host") + ":" + p));
    node.apiPort().ifPresent(p -> System.out.println("  Controller API port " + p));
    node.routerPort().ifPresent(p -> System.out.println("  Router endpoint port " + p));
    node.haproxy().ifPresent(h -> System.out.println("  HAProxy data plane: http://"
        + node.system().settings().config().getString("sluice.haproxy.host") + ":"
        + node.system().settings().config().getInt("sluice.haproxy.port")));
    node.haproxy().flatMap(HaproxyDataPlane::metricsUrl).ifPresent(url ->
        System.out.println("  HAProxy metrics: " + url));
    node.metricsPort().ifPresent(p -> System.out.println("  Metrics: http://"
        + node.system().settings().config().getString("sluice.metrics.host") + ":" + p
        + "/metrics"));
    node.ingressPort().ifPresent(p -> {
      String bound = node.system().settings().config().getString("sluice.ingress.host");
      if (host != null && !Exposure.isLoopback(host) && Exposure.isLoopback(bound)) {
        System.out.println("  Note: the ingress listens on " + bound + " only; other machines "
            + "cannot reach it. Add --ingress-host 0.0.0.0 (with API keys) to expose it.");
      }
    });
    node.system().getWhenTerminated().toCompletableFuture().get();
    return 0;
  }

  private static void put(Map<String, Object> given, String key, Object value) {
    if (value != null) {
      given.put(key, value);
    }
  }

  /** Names a busy port before anything starts (instead of a bind failure deep in a log). */
  private static void requirePortsFree(com.typesafe.config.Config config,
      java.util.Set<Role> roles) {
    Ports.requireFree(config.getString("pekko.remote.artery.canonical.hostname"), Map.of(
        "cluster remoting", config.getInt("pekko.remote.artery.canonical.port")));
    if (ClusterFormation.managementEnabled(config)) {
      Ports.requireFree(config.getString("pekko.management.http.hostname"), Map.of(
          "management", config.getInt("pekko.management.http.port")));
    }
    Ports.requireFree(config.getString("sluice.metrics.host"),
        Map.of("metrics", config.getInt("sluice.metrics.port")));
    if (roles.contains(Role.INGRESS)) {
      Ports.requireFree(config.getString("sluice.ingress.host"),
          Map.of("ingress", config.getInt("sluice.ingress.port")));
      Ports.requireFree(config.getString("sluice.haproxy.host"),
          Map.of("HAProxy", config.getInt("sluice.haproxy.port")));
      if (config.getInt("sluice.haproxy.port") >= 0) {
        Ports.requireFree(config.getString("sluice.metrics.host"),
            Map.of("HAProxy metrics", config.getInt("sluice.haproxy.metrics-port")));
      }
    }
    if (roles.contains(Role.CONTROL)) {
      Ports.requireFree(config.getString("sluice.controller.api.host"),
          Map.of("controller API", config.getInt("sluice.controller.api.port")));
    }
    if (SluiceNode.servesRouterEndpoint(roles, config)) {
      Ports.requireFree(config.getString("sluice.router.http.host"),
          Map.of("router endpoint", config.getInt("sluice.router.http.port")));
    }
  }
}
