package dev.sluice.deploy;

import com.typesafe.config.Config;
import dev.sluice.controller.api.ApiGuard;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listeners reachable beyond this machine without their guard: the public ingress or HAProxy
 * data plane without API keys, an internal endpoint (router, replica) without the cluster token,
 * the controller API without a token of its own or without HTTPS, or cluster remoting without
 * TLS. {@link StrictSecurity} gathers those of a node: a loud warning each, once at start, or,
 * with {@code sluice.security.strict} on, the reasons the node does not start. Loopback binds
 * (the default, and {@code sluice local}) are quiet.
 */
final class Exposure {

  private static final Logger log = LoggerFactory.getLogger(Exposure.class);

  private Exposure() {}

  /**
   * A public listener ({@code what}: the ingress, or the HAProxy data plane, which checks the
   * same keys) reachable beyond loopback without API keys.
   */
  static Optional<String> publicListener(String what, String host, boolean apiKeys) {
    return apiKeys || isLoopback(host) ? Optional.empty() : Optional.of(what + " listens on "
        + host + " without API keys: anyone who reaches it can use every model. Set "
        + "sluice.ingress.api-keys (env SLUICE_API_KEYS) or api-keys-file, or bind it to "
        + "127.0.0.1.");
  }

  /** An internal endpoint reachable beyond loopback without the cluster token. */
  static Optional<String> internalEndpoint(String what, String host, boolean clusterToken) {
    return clusterToken || isLoopback(host) ? Optional.empty() : Optional.of(what
        + " listens on " + host + " without a cluster token: anyone who reaches it can use it "
        + "directly, past the ingress's keys and limits. Set sluice.core.cluster-token (env "
        + "SLUICE_CLUSTER_TOKEN) on every node, or keep it on an internal interface.");
  }

  /**
   * The controller API reachable beyond loopback without a guard, or with only the cluster
   * token, which travels in plain HTTP with every forwarded request: whoever writes the desired
   * state chooses the commands replica nodes run (openai-process engines).
   */
  static Optional<String> controllerApi(String host, ApiGuard.Credential credential) {
    if (isLoopback(host) || credential == ApiGuard.Credential.API_TOKEN) {
      return Optional.empty();
    }
    String consequence = "change or delete what the cluster serves, and make every replica node "
        + "run any program it names (the command of an openai-process engine)";
    return Optional.of(credential == ApiGuard.Credential.NONE
        ? "the controller API listens on " + host + " without a token: anyone who reaches it "
            + "can " + consequence + ". Set sluice.controller.api.token (env "
            + "SLUICE_CONTROLLER_API_TOKEN) and sluice.core.cluster-token (env "
            + "SLUICE_CLUSTER_TOKEN), or bind it to 127.0.0.1."
        : "the controller API listens on " + host + " and takes the cluster token, which every "
            + "ingress sends in plain HTTP with the requests it forwards: whoever can read that "
            + "traffic can " + consequence + ". Set sluice.controller.api.token (env "
            + "SLUICE_CONTROLLER_API_TOKEN) to give the API a token of its own.");
  }

  /** The controller API reachable beyond loopback over plain HTTP: its token travels in clear. */
  static Optional<String> controllerApiInClear(String host, boolean https) {
    return https || isLoopback(host) ? Optional.empty() : Optional.of("the controller API "
        + "listens on " + host + " over plain HTTP: its token travels in clear from every "
        + "operator and CLI. Set sluice.controller.api.tls-dir (env SLUICE_API_TLS_DIR), or "
        + "bind it to 127.0.0.1.");
  }

  /** Cluster remoting beyond loopback without TLS: any host that reaches it can join. */
  static Optional<String> remoting(Config config) {
    if (!config.getString("sluice.cluster.tls-dir").isBlank()) {
      return Optional.empty();
    }
    String host = remotingHost(config);
    return isLoopback(host) ? Optional.empty() : Optional.of("cluster remoting listens on "
        + host + " without TLS: any host that reaches its port can join the cluster, and a "
        + "member can start replicas and the programs of their engines. Set "
        + "sluice.cluster.tls-dir (env SLUICE_REMOTING_TLS_DIR) on every node, or keep the port "
        + "on a network only cluster nodes reach.");
  }

  /** Says how cluster traffic travels when it runs TLS. */
  static void logRemoting(Config config) {
    String dir = config.getString("sluice.cluster.tls-dir");
    if (!dir.isBlank()) {
      log.info("Cluster traffic: TLS with mutual authentication (certificates in {})", dir);
    }
  }

  static String remotingHost(Config config) {
    String bind = config.getString("pekko.remote.artery.bind.hostname");
    return bind.isBlank() ? config.getString("pekko.remote.artery.canonical.hostname") : bind;
  }

  /** The replica endpoints' bind host, as {@code ReplicaNodeSettings} derives it. */
  static String replicaBindHost(Config config) {
    String bind = config.getString("sluice.replica.bind-host");
    return bind.isBlank() ? config.getString("pekko.remote.artery.canonical.hostname") : bind;
  }

  static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
