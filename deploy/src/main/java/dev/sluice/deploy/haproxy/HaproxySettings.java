package dev.sluice.deploy.haproxy;

import com.typesafe.config.Config;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code sluice.haproxy.*}: the HAProxy data plane an ingress node runs beside its own ingress
 * (see deploy's reference.conf).
 *
 * @param port where HAProxy listens; -1 = no HAProxy
 * @param router the router endpoint's {@code host:port} the Lua action asks; empty = this node's
 * @param dir where the config, the Lua action and the master socket go; empty = a new temp dir
 * @param metricsHost where HAProxy's Prometheus exporter listens ({@code sluice.metrics.host})
 * @param metricsPort its port; -1 = none
 */
public record HaproxySettings(String host, int port, String binary, String router,
    Optional<Path> dir, Duration syncDelay, Duration startTimeout, String metricsHost,
    int metricsPort) {

  public static HaproxySettings fromConfig(Config config) {
    Config c = config.getConfig("sluice.haproxy");
    String dir = c.getString("dir");
    if (c.getInt("port") == 0) {
      throw new IllegalArgumentException("sluice.haproxy.port: 0 (HAProxy needs a fixed port; -1 "
          + "turns it off)");
    }
    if (c.getInt("metrics-port") == 0) {
      throw new IllegalArgumentException("sluice.haproxy.metrics-port: 0 (HAProxy needs a fixed "
          + "port; -1 turns it off)");
    }
    return new HaproxySettings(c.getString("host"), c.getInt("port"), c.getString("binary"),
        c.getString("router"), dir.isEmpty() ? Optional.empty() : Optional.of(Path.of(dir)),
        c.getDuration("sync-delay"), c.getDuration("start-timeout"),
        config.getString("sluice.metrics.host"), c.getInt("metrics-port"));
  }

  /** Whether HAProxy serves its own Prometheus metrics. */
  public boolean metricsEnabled() {
    return enabled() && metricsPort >= 0;
  }

  public boolean enabled() {
    return port >= 0;
  }
}
