package dev.sluice.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.cluster.typed.JoinSeedNodes;
import org.apache.pekko.management.cluster.bootstrap.ClusterBootstrap;
import org.apache.pekko.management.javadsl.PekkoManagement;

/**
 * How a node finds its cluster ({@code sluice.cluster.discovery}): the seed nodes it was given,
 * or Pekko Management's cluster bootstrap over Kubernetes API or config discovery, which forms
 * a new cluster once enough contact points agree and joins an existing one otherwise. The
 * management endpoint also serves the {@code /ready} and {@code /alive} health checks.
 */
final class ClusterFormation {

  private ClusterFormation() {}

  enum Discovery {
    SEED_NODES("seed-nodes"), KUBERNETES_API("kubernetes-api"), CONFIG("config");

    final String key;

    Discovery(String key) {
      this.key = key;
    }

    static Discovery of(String value) {
      for (Discovery discovery : values()) {
        if (discovery.key.equals(value)) {
          return discovery;
        }
      }
      throw new IllegalArgumentException("sluice.cluster.discovery (--discovery): '" + value
          + "' (expected: seed-nodes, kubernetes-api or config)");
    }
  }

  static Discovery discovery(Config config) {
    return Discovery.of(config.getString("sluice.cluster.discovery"));
  }

  static boolean managementEnabled(Config config) {
    String enabled = config.getString("sluice.cluster.management.enabled");
    return switch (enabled) {
      case "on" -> true;
      case "off" -> false;
      case "auto" -> discovery(config) != Discovery.SEED_NODES;
      default -> throw new IllegalArgumentException("sluice.cluster.management.enabled: '"
          + enabled + "' (expected: auto, on or off)");
    };
  }

  /** The Pekko Management and discovery settings that {@code sluice.cluster} stands for. */
  static Config pekkoSettings(Config config) {
    Discovery discovery = discovery(config);
    String host = config.getString("pekko.remote.artery.canonical.hostname");
    int port = config.getInt("sluice.cluster.management.port");
    String service = config.getString("sluice.cluster.service-name");
    String bootstrap = "pekko.management.cluster.bootstrap.contact-point-discovery.";
    Config settings = ConfigFactory.parseMap(Map.of(
        "pekko.management.http.hostname", host,
        "pekko.management.http.port", port,
        "pekko.management.http.bind-hostname",
        config.getString("sluice.cluster.management.bind-host"),
        bootstrap + "service-name", service,
        bootstrap + "required-contact-point-nr",
        config.getInt("sluice.cluster.required-contact-points"),
        "pekko.management.cluster.bootstrap.contact-point.fallback-port", port));
    if (discovery == Discovery.SEED_NODES) {
      return settings;
    }
    settings = settings.withValue(bootstrap + "discovery-method",
        ConfigValueFactory.fromAnyRef(discovery.key));
    if (discovery == Discovery.KUBERNETES_API) {
      // Contact pods by IP: pod DNS records are not there in every cluster.
      settings = settings.withValue("pekko.discovery.kubernetes-api.use-raw-ip",
          ConfigValueFactory.fromAnyRef(true));
    }
    if (discovery == Discovery.CONFIG) {
      List<Map<String, Object>> endpoints = new ArrayList<>();
      for (String point : contactPoints(config)) {
        Address address = SluiceNode.seedAddress(point);
        endpoints.add(Map.of("host", address.host().get(), "port", address.port().get()));
      }
      settings = settings.withValue("pekko.discovery.config.services." + service + ".endpoints",
          ConfigValueFactory.fromIterable(endpoints))
          // Contact points are listed with their own ports (several nodes may share a host), not
          // only this node's management port.
          .withValue("pekko.management.cluster.bootstrap.contact-point.filter-on-fallback-port",
              ConfigValueFactory.fromAnyRef(false));
    }
    return settings;
  }

  private static List<String> contactPoints(Config config) {
    List<String> points = Arrays.stream(config.getString("sluice.cluster.contact-points")
        .split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    if (points.isEmpty()) {
      throw new IllegalArgumentException("--discovery config needs --contact-points (the "
          + "management endpoints, host:port, of the nodes that may form the cluster)");
    }
    return points;
  }

  /** Joins the cluster as configured; starts the management endpoint when it is enabled. */
  static void join(ActorSystem<?> system, List<String> seedNodes) {
    Config config = system.settings().config();
    Discovery discovery = discovery(config);
    if (discovery != Discovery.SEED_NODES && !seedNodes.isEmpty()) {
      throw new IllegalArgumentException("--seed-nodes and --discovery " + discovery.key
          + " exclude each other: the bootstrap finds the nodes itself");
    }
    if (managementEnabled(config)) {
      await(PekkoManagement.get(system.classicSystem()).start());
    }
    Cluster cluster = Cluster.get(system);
    switch (discovery) {
      case SEED_NODES -> {
        if (seedNodes.isEmpty()) {
          cluster.manager().tell(Join.create(cluster.selfMember().address()));
        } else {
          cluster.manager().tell(new JoinSeedNodes(
              seedNodes.stream().map(SluiceNode::seedAddress).toList()));
        }
      }
      case KUBERNETES_API, CONFIG -> ClusterBootstrap.get(system.classicSystem()).start();
    }
  }

  /** Whether {@code seeds} name no node but {@code self}: it can only ever join itself. */
  static boolean onlyItself(List<Address> seeds, Address self) {
    return seeds.stream().allMatch(seed -> seed.host().equals(self.host())
        && seed.port().equals(self.port()));
  }

  /**
   * What a node started with only itself as seed is told: restarted while other nodes run, it
   * would form a cluster of its own, which they never join.
   */
  static String onlyItselfWarning(String seed) {
    return "warning: --seed-nodes names only this node (" + seed + "). If it restarts while "
        + "other nodes run, it forms a new cluster without them, and they stay out of it "
        + "(replica_nodes 0) until they restart too. List other nodes after it, e.g. "
        + "--seed-nodes " + seed + ",<a replica node's host>:25520 (README, Multi-node)";
  }

  private static void await(java.util.concurrent.CompletionStage<?> started) {
    try {
      started.toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      Throwable cause = e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
      throw new IllegalStateException("the management endpoint did not start: "
          + cause.getMessage(), cause);
    }
  }
}
