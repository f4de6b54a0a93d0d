package dev.sluice.replica;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings of the {@code replica} role, read once from {@code sluice.replica}.
 *
 * @param bindHost interface the replica endpoints bind to
 * @param advertiseHost host routers and ingresses use to reach the endpoints
 * @param ports candidate ports, tried in order ({@code [0]} = ephemeral)
 * @param loadReportInterval how often the node looks at every replica's load and reports those
 *     that changed or admitted requests
 * @param loadReportHeartbeat how often a node sends every replica's last load again, changed or
 *     not
 */
public record ReplicaNodeSettings(
    String bindHost,
    String advertiseHost,
    List<Integer> ports,
    long maxRequestBytes,
    Duration bodyTimeout,
    Duration unconsumedResponseTimeout,
    Duration reservationTimeout,
    Duration loadReportInterval,
    Duration loadReportHeartbeat) {

  public ReplicaNodeSettings {
    ports = List.copyOf(ports);
    requirePositive("sluice.replica.load-report-interval", loadReportInterval);
    requirePositive("sluice.replica.load-report-heartbeat", loadReportHeartbeat);
  }

  private static void requirePositive(String key, Duration value) {
    if (value.isZero() || value.isNegative()) {
      throw new IllegalArgumentException(key + " must be positive, got " + value);
    }
  }

  /**
   * The same settings with the port list rotated to start at {@code index}, so that replicas
   * spawned one after another on a node try different ports first instead of racing for one.
   */
  public ReplicaNodeSettings rotatePorts(int index) {
    int start = Math.floorMod(index, ports.size());
    List<Integer> rotated = new ArrayList<>(ports.size());
    rotated.addAll(ports.subList(start, ports.size()));
    rotated.addAll(ports.subList(0, start));
    return new ReplicaNodeSettings(bindHost, advertiseHost, rotated, maxRequestBytes, bodyTimeout,
        unconsumedResponseTimeout, reservationTimeout, loadReportInterval, loadReportHeartbeat);
  }

  /** Reads {@code sluice.replica}; an empty host means {@code defaultHost} (the node's). */
  public static ReplicaNodeSettings fromConfig(Config root, String defaultHost) {
    Config config = root.getConfig("sluice.replica");
    String bind = config.getString("bind-host");
    String advertise = config.getString("advertise-host");
    return new ReplicaNodeSettings(
        bind.isEmpty() ? defaultHost : bind,
        advertise.isEmpty() ? defaultHost : advertise,
        parsePorts(config.getString("port-range")),
        config.getBytes("max-request-bytes"),
        config.getDuration("body-timeout"),
        config.getDuration("unconsumed-response-timeout"),
        config.getDuration("reservation-timeout"),
        config.getDuration("load-report-interval"),
        config.getDuration("load-report-heartbeat"));
  }

  static List<Integer> parsePorts(String range) {
    String key = "sluice.replica.port-range";
    String[] parts = range.trim().split("-");
    try {
      int first = Integer.parseInt(parts[0].trim());
      int last = parts.length == 2 ? Integer.parseInt(parts[1].trim()) : first;
      if (parts.length > 2 || first < 0 || last > 65535 || last < first
          || (first == 0 && last != 0)) {
        throw new NumberFormatException();
      }
      List<Integer> ports = new ArrayList<>(last - first + 1);
      for (int port = first; port <= last; port++) {
        ports.add(port);
      }
      return ports;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          key + ": '" + range + "' (expected: <first>-<last> within 1..65535, or 0 for ephemeral)");
    }
  }
}
