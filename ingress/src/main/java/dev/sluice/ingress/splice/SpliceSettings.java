package dev.sluice.ingress.splice;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * Settings of the splice data path, read once from {@code sluice.ingress.splice} (and the
 * ingress's upstream and body-size keys, which both data paths honour).
 *
 * @param threads selector threads (0 = one per available core)
 * @param maxHeadBytes largest request or response head (431 / 502 beyond)
 * @param maxBodyBytes largest request body (413 beyond)
 * @param clientIdleTimeout a client connection with no request in flight is closed after this
 * @param responseTimeout longest wait for a replica's response head (504 beyond)
 */
public record SpliceSettings(
    int threads,
    int backlog,
    int maxHeadBytes,
    long maxBodyBytes,
    Duration clientIdleTimeout,
    Duration responseTimeout,
    Duration connectTimeout,
    Duration upstreamIdleTimeout) {

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
    return new SpliceSettings(
        threads == 0 ? Runtime.getRuntime().availableProcessors() : threads,
        splice.getInt("backlog"),
        (int) maxHead,
        ingress.getBytes("max-request-bytes"),
        splice.getDuration("client-idle-timeout"),
        splice.getDuration("response-timeout"),
        ingress.getDuration("upstream.connect-timeout"),
        ingress.getDuration("upstream.idle-timeout"));
  }
}
