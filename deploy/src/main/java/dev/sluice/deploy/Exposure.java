package dev.sluice.deploy;

import com.typesafe.config.Config;
import dev.sluice.controller.api.ApiGuard;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loud warnings, once at start, for a listener reachable beyond this machine without its guard:
 * the public ingress or HAProxy data plane without API keys, an internal endpoint (router,
 * replica) without the cluster token, the controller API without a token of its own, or cluster
 * remoting without TLS. Loopback binds (the default, and {@code sluice local}) are quiet.
 */
final class Exposure {

  private static final Logger log = LoggerFactory.getLogger(Exposure.class);

  private Exposure() {}

  /**
   * Warns (and says so) when a public listener ({@code what}: the ingress, or the HAProxy data
   * plane, which checks the same keys) is reachable beyond loopback without API keys.
   */
  static boolean warnPublic(String what, String host, boolean apiKeys) {
    boolean exposed = !apiKeys && !isLoopback(host);
    if (exposed) {
      log.warn("SECURITY: {} listens on {} without API keys: anyone who reaches it can "
          + "use every model. Set sluice.ingress.api-keys (env SLUICE_API_KEYS) or "
          + "api-keys-file, or bind it to 127.0.0.1.", what, host);
    }
    return exposed;
  }

  /** Warns (and says so) when an internal endpoint is reachable beyond loopback unguarded. */
  static boolean warnInternal(String what, String host, boolean clusterToken) {
    return warnInternal(what, host, clusterToken,
        "use it directly, past the ingress's keys and limits");
  }

  /**
   * Warns (and says so) when the controller API is reachable beyond loopback without a guard, or
   * with only the cluster token, which travels in plain HTTP with every forwarded request:
   * whoever writes the desired state chooses the commands replica nodes run (openai-process
   * engines).
   */
  static boolean warnControllerApi(String host, ApiGuard.Credential credential) {
    if (isLoopback(host) || credential == ApiGuard.Credential.API_TOKEN) {
      return false;
    }
    String consequence = "change or delete what the cluster serves, and make every replica node "
        + "run any program it names (the command of an openai-process engine)";
    if (credential == ApiGuard.Credential.NONE) {
      log.warn("SECURITY: the controller API listens on {} without a token: anyone who reaches "
          + "it can {}. Set sluice.controller.api.token (env SLUICE_CONTROLLER_API_TOKEN) and "
          + "sluice.core.cluster-token (env SLUICE_CLUSTER_TOKEN), or bind it to 127.0.0.1.",
          host, consequence);
    } else {
      log.warn("SECURITY: the controller API listens on {} and takes the cluster token, which "
          + "every ingress sends in plain HTTP with the requests it forwards: whoever can read "
          + "that traffic can {}. Set sluice.controller.api.token (env "
          + "SLUICE_CONTROLLER_API_TOKEN) to give the API a token of its own.", host, consequence);
    }
    return true;
  }

  private static boolean warnInternal(String what, String host, boolean clusterToken,
      String consequence) {
    boolean exposed = !clusterToken && !isLoopback(host);
    if (exposed) {
      log.warn("SECURITY: {} listens on {} without a cluster token: anyone who reaches it can "
          + "{}. Set sluice.core.cluster-token (env SLUICE_CLUSTER_TOKEN) on every node, or "
          + "keep it on an internal interface.", what, host, consequence);
    }
    return exposed;
  }

  /**
   * Says how cluster traffic travels, and warns (and says so) when remoting listens beyond
   * loopback without TLS: any host that reaches it can join, and a member can start replicas.
   */
  static boolean warnRemoting(Config config) {
    String dir = config.getString("sluice.cluster.tls-dir");
    if (!dir.isBlank()) {
      log.info("Cluster traffic: TLS with mutual authentication (certificates in {})", dir);
      return false;
    }
    String bind = config.getString("pekko.remote.artery.bind.hostname");
    String host = bind.isBlank() ? config.getString("pekko.remote.artery.canonical.hostname")
        : bind;
    boolean exposed = !isLoopback(host);
    if (exposed) {
      log.warn("SECURITY: cluster remoting listens on {} without TLS: any host that reaches its "
          + "port can join the cluster, and a member can start replicas and the programs of "
          + "their engines. Set sluice.cluster.tls-dir (env SLUICE_REMOTING_TLS_DIR) on every "
          + "node, or keep the port on a network only cluster nodes reach.", host);
    }
    return exposed;
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
