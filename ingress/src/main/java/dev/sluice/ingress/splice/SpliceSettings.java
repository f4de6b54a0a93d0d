package dev.sluice.ingress.splice;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * Settings of the splice data path, read once from {@code sluice.ingress.splice} (and the
 * ingress's upstream and body-size keys).
 *
 * @param threads selector threads (0 = one per available core)
 * @param maxConnections client connections open at once (503 beyond)
 * @param maxBufferedBytes request bytes all connections may hold together (503 beyond)
 * @param maxHeadBytes largest request or response head (431 / 502 beyond)
 * @param maxBodyBytes largest request body (413 beyond)
 * @param headTimeout longest time from a request's first byte to the end of its head (408)
 * @param bodyTimeout longest time from the end of a head to the end of its body (408)
 * @param clientIdleTimeout a client connection with no request in flight is closed after this
 * @param responseTimeout longest wait for a replica's response head (504 beyond)
 * @param streamIdleTimeout an answer in flight that moves no byte for this long is cut
 */
public record SpliceSettings(
    int threads,
    int backlog,
    int maxConnections,
    long maxBufferedBytes,
    int maxHeadBytes,
    long maxBodyBytes,
    Duration headTimeout,
    Duration bodyTimeout,
    Duration clientIdleTimeout,
    Duration responseTimeout,
    Duration streamIdleTimeout,
    Duration connectTimeout,
    Duration upstreamIdleTimeout,
    Duration dnsTtl) {

  public static SpliceSettings fromConfig(Config root) {
    Config ingress = root.getConfig("sluice.ingress");
    Config splice = ingress.getConfig("splice");
    int threads = splice.getInt("threads");
    if (threads < 0) {
      throw new IllegalArgumentException("sluice.ingress.splice.threads: " + threads
          + " (expected: 0 = one per core, or a positive count)");
    }
    long maxHead = splice.getBytes("max-head-bytes");
    if (maxHead < 1024 || maxHead > 1024 * 1024) {
      throw new IllegalArgumentException("sluice.ingress.splice.max-head-bytes: " + maxHead
          + " (expected: 1 KiB .. 1 MiB)");
    }
    int maxConnections = splice.getInt("max-connections");
    if (maxConnections < 1) {
      throw new IllegalArgumentException("sluice.ingress.splice.max-connections: "
          + maxConnections + " (expected: >= 1)");
    }
    long maxBuffered = splice.getBytes("max-buffered-request-bytes");
    if (maxBuffered < 0) {
      throw new IllegalArgumentException("sluice.ingress.splice.max-buffered-request-bytes: "
          + maxBuffered + " (expected: 0 = a quarter of the heap, or a size)");
    }
    return new SpliceSettings(
        threads == 0 ? Runtime.getRuntime().availableProcessors() : threads,
        splice.getInt("backlog"),
        maxConnections,
        maxBuffered == 0 ? Runtime.getRuntime().maxMemory() / 4 : maxBuffered,
        (int) maxHead,
        ingress.getBytes("max-request-bytes"),
        positive(root, "sluice.ingress.splice.head-timeout"),
        positive(root, "sluice.ingress.splice.body-timeout"),
        positive(root, "sluice.ingress.splice.client-idle-timeout"),
        positive(root, "sluice.ingress.splice.response-timeout"),
        positive(root, "sluice.ingress.splice.stream-idle-timeout"),
        positive(root, "sluice.ingress.upstream.connect-timeout"),
        positive(root, "sluice.ingress.upstream.idle-timeout"),
        ingress.getDuration("upstream.dns-ttl"));
  }

  private static Duration positive(Config root, String path) {
    Duration value = root.getDuration(path);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(path + ": " + value + " (expected: > 0)");
    }
    return value;
  }

  /** These settings for tests: small limits, short timeouts. */
  public static SpliceSettings forTests(int maxHeadBytes, long maxBodyBytes, Duration timeouts) {
    return new SpliceSettings(2, 128, 1000, 64L * 1024 * 1024, maxHeadBytes, maxBodyBytes,
        timeouts, timeouts, timeouts, timeouts, Duration.ofSeconds(30), timeouts,
        Duration.ofSeconds(30), Duration.ofSeconds(30));
  }

  public SpliceSettings withLimits(int maxConnections, long maxBufferedBytes) {
    return new SpliceSettings(threads, backlog, maxConnections, maxBufferedBytes, maxHeadBytes,
        maxBodyBytes, headTimeout, bodyTimeout, clientIdleTimeout, responseTimeout,
        streamIdleTimeout, connectTimeout, upstreamIdleTimeout, dnsTtl);
  }

  public SpliceSettings withStreamIdleTimeout(Duration timeout) {
    return new SpliceSettings(threads, backlog, maxConnections, maxBufferedBytes, maxHeadBytes,
        maxBodyBytes, headTimeout, bodyTimeout, clientIdleTimeout, responseTimeout, timeout,
        connectTimeout, upstreamIdleTimeout, dnsTtl);
  }
}
