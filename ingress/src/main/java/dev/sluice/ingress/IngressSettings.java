package dev.sluice.ingress;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueType;
import dev.sluice.core.http.ClusterToken;
import dev.sluice.ingress.edge.ApiKeys;
import dev.sluice.ingress.edge.EdgePolicy;
import dev.sluice.ingress.splice.SpliceSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Settings of the ingress, read once from {@code sluice.ingress}.
 *
 * @param routeTimeout how long to wait for the router's pick before failing closed
 * @param directStreaming on: tokens flow replica -> ingress as bytes (the splice); off: the
 *     relayed path
 * @param splice settings of the splice data path
 * @param maxRequestBytes largest request body (413 beyond)
 * @param forwardBody whether the body (up to {@code forwardBodyLimit} bytes) goes to the router
 *     for body-aware policies; off, the router sees no body
 * @param apiKeys the keys clients must send (none: no key needed); those of a keys file are
 *     read again by {@link ApiKeys#reload()}
 * @param clusterToken the secret sent to replicas' internal endpoints
 */
public record IngressSettings(
    String host,
    int port,
    Duration routeTimeout,
    String sessionHeader,
    boolean directStreaming,
    boolean forwardBody,
    int forwardBodyLimit,
    long maxRequestBytes,
    SpliceSettings splice,
    ApiKeys apiKeys,
    ClusterToken clusterToken) {

  private static int forwardBodyLimit(Config config) {
    long limit = config.getBytes("forward-body-limit");
    if (limit < 1 || limit > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException("sluice.ingress.forward-body-limit: " + limit
          + " (expected: 1 byte .. 1 GiB)");
    }
    return (int) limit;
  }

  /** The same settings with another mode (an extra ingress on the relayed path, say). */
  public IngressSettings withDirectStreaming(boolean on, int newPort) {
    return new IngressSettings(host, newPort, routeTimeout, sessionHeader, on, forwardBody,
        forwardBodyLimit, maxRequestBytes, splice, apiKeys, clusterToken);
  }

  /** The same settings with these API keys. */
  public IngressSettings withApiKeys(ApiKeys keys) {
    return new IngressSettings(host, port, routeTimeout, sessionHeader, directStreaming,
        forwardBody, forwardBodyLimit, maxRequestBytes, splice, keys, clusterToken);
  }

  /** The edge policy every data path of this ingress follows. */
  public EdgePolicy edgePolicy() {
    return new EdgePolicy(sessionHeader, routeTimeout, forwardBody, forwardBodyLimit, apiKeys,
        clusterToken);
  }

  public static IngressSettings fromConfig(Config root) {
    Config config = root.getConfig("sluice.ingress");
    if (config.hasPath("data-path")) {
      throw new IllegalArgumentException("sluice.ingress.data-path: removed; the splice is the "
          + "only direct-streaming data path (the Pekko HTTP one was several times slower and a "
          + "second parser to harden: see docs/BENCHMARKS.md)");
    }
    return new IngressSettings(
        config.getString("host"),
        config.getInt("port"),
        config.getDuration("route-timeout"),
        config.getString("session-header"),
        config.getBoolean("direct-streaming"),
        config.getBoolean("forward-body"),
        forwardBodyLimit(config),
        config.getBytes("max-request-bytes"),
        SpliceSettings.fromConfig(root),
        apiKeys(config),
        ClusterToken.fromConfig(root));
  }

  /** {@code api-keys} (a list or one comma-separated string) plus the keys file, if any. */
  private static ApiKeys apiKeys(Config config) {
    List<String> keys = new ArrayList<>();
    if (config.getValue("api-keys").valueType() == ConfigValueType.LIST) {
      keys.addAll(config.getStringList("api-keys"));
    } else {
      keys.addAll(Arrays.asList(config.getString("api-keys").split(",")));
    }
    String file = config.getString("api-keys-file");
    return file.isBlank() ? ApiKeys.of(keys) : ApiKeys.withFile(keys, Path.of(file));
  }
}
