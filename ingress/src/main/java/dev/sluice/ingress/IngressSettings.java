package dev.sluice.ingress;

import com.typesafe.config.Config;
import dev.sluice.ingress.splice.SpliceSettings;
import java.time.Duration;

/**
 * Settings of the ingress, read once from {@code sluice.ingress}.
 *
 * @param routeTimeout how long to wait for the router's pick before failing closed
 * @param maxConnectionsPerReplica pooled keep-alive connections per replica endpoint
 * @param maxOpenRequestsPerReplica requests that may wait for or use those connections (power of 2)
 * @param directStreaming on: tokens flow replica -> ingress as bytes; off: the relayed path
 * @param dataPath how direct-streaming bytes cross this ingress (splice or Pekko HTTP)
 * @param splice settings of the splice data path
 * @param maxRequestBytes largest body the relayed path reads (413 beyond)
 * @param forwardBody whether the body (up to {@code forwardBodyLimit} bytes) goes to the router
 *     for body-aware policies; off, the body is not read before routing
 */
public record IngressSettings(
    String host,
    int port,
    Duration routeTimeout,
    String sessionHeader,
    boolean directStreaming,
    int maxConnectionsPerReplica,
    int maxOpenRequestsPerReplica,
    Duration upstreamConnectTimeout,
    Duration upstreamIdleTimeout,
    boolean forwardBody,
    int forwardBodyLimit,
    long maxRequestBytes,
    DataPath dataPath,
    SpliceSettings splice) {

  /** How direct-streaming bytes cross the ingress. */
  public enum DataPath {
    /** Selector threads copy the replica's bytes to the client's socket (the default). */
    SPLICE,
    /** Pekko HTTP server and client streams (the first implementation, kept to compare). */
    PEKKO_HTTP;

    static DataPath parse(String value) {
      return switch (value) {
        case "splice" -> SPLICE;
        case "pekko-http" -> PEKKO_HTTP;
        default -> throw new IllegalArgumentException("sluice.ingress.data-path: " + value
            + " (expected: splice or pekko-http)");
      };
    }
  }

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
    return new IngressSettings(host, newPort, routeTimeout, sessionHeader, on,
        maxConnectionsPerReplica, maxOpenRequestsPerReplica, upstreamConnectTimeout,
        upstreamIdleTimeout, forwardBody, forwardBodyLimit, maxRequestBytes, dataPath, splice);
  }

  public static IngressSettings fromConfig(Config root) {
    Config config = root.getConfig("sluice.ingress");
    boolean direct = config.getBoolean("direct-streaming");
    int maxOpen = config.getInt("upstream.max-open-requests");
    if (maxOpen < 1 || Integer.bitCount(maxOpen) != 1) {
      throw new IllegalArgumentException("sluice.ingress.upstream.max-open-requests: " + maxOpen
          + " (expected: a power of 2)");
    }
    int maxConnections = config.getInt("upstream.max-connections");
    if (maxConnections < 1) {
      throw new IllegalArgumentException("sluice.ingress.upstream.max-connections: "
          + maxConnections + " (expected: >= 1)");
    }
    return new IngressSettings(
        config.getString("host"),
        config.getInt("port"),
        config.getDuration("route-timeout"),
        config.getString("session-header"),
        direct,
        maxConnections,
        maxOpen,
        config.getDuration("upstream.connect-timeout"),
        config.getDuration("upstream.idle-timeout"),
        config.getBoolean("forward-body"),
        forwardBodyLimit(config),
        config.getBytes("max-request-bytes"),
        DataPath.parse(config.getString("data-path")),
        SpliceSettings.fromConfig(root));
  }
}
