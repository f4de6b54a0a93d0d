package dev.sluice.router;

import com.typesafe.config.Config;
import dev.sluice.core.http.ClusterToken;
import java.time.Duration;

/**
 * Settings of the router, read once from {@code sluice.router}.
 *
 * @param sessionHeader header carrying the session id (matched case-insensitively, '-' = '_')
 * @param httpHost interface of {@code POST /internal/route}
 * @param httpPort its port; negative disables the endpoint
 * @param askTimeout how long the HTTP endpoint waits for the router singleton
 * @param defaultRouteBudget how long a request may wait for capacity (capacity-queue) when its
 *     caller did not say
 * @param clusterToken what {@code /internal/route} callers must send, if set
 */
public record RouterSettings(
    String sessionHeader, String httpHost, int httpPort, Duration askTimeout, long maxBodyBytes,
    Duration defaultRouteBudget, ClusterToken clusterToken) {

  public static RouterSettings fromConfig(Config root) {
    Config config = root.getConfig("sluice.router");
    String header = config.getString("session-header").trim();
    if (header.isEmpty()) {
      throw new IllegalArgumentException("sluice.router.session-header: '' (expected: a header)");
    }
    return new RouterSettings(header, config.getString("http.host"), config.getInt("http.port"),
        config.getDuration("ask-timeout"), config.getBytes("http.max-body-bytes"),
        config.getDuration("default-route-budget"), ClusterToken.fromConfig(root));
  }
}
