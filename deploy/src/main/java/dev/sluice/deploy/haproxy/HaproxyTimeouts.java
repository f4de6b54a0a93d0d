package dev.sluice.deploy.haproxy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigResolveOptions;
import dev.sluice.ingress.splice.SpliceSettings;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * HAProxy's client and server timeouts, taken from the ingress's settings
 * ({@code sluice.ingress.splice}), so that a client meets the same limits through either data
 * plane of a node:
 * <ul>
 *   <li>{@code timeout http-request}: {@code head-timeout}, how long a request may take to
 *       arrive (HAProxy's one timeout covers the head and, as it buffers a completion, the
 *       body: the ingress gives a body {@code body-timeout} more);
 *   <li>{@code timeout http-keep-alive}: {@code client-idle-timeout}, how long a connection may
 *       stay idle between requests (without it, HAProxy falls back to {@code http-request});
 *   <li>{@code timeout client}: {@code stream-idle-timeout}, how long a client may take nothing
 *       of an answer in flight before it is cut and its replica slot freed (HAProxy does not
 *       apply it while the client waits for an answer to start);
 *   <li>{@code timeout server}: {@code response-timeout}, how long a replica may take to start
 *       its answer. HAProxy has one server-side timeout, so it is also how long a replica may
 *       stay silent in an answer (the splice cuts that at {@code stream-idle-timeout}).
 * </ul>
 */
public record HaproxyTimeouts(Duration request, Duration keepAlive, Duration clientIdle,
    Duration server) {

  private static final String PREFIX = "sluice.ingress.splice.";
  /** HAProxy's largest timeout: 2^31 - 1 milliseconds (about 24.8 days). */
  private static final long MAX_MILLIS = Integer.MAX_VALUE;

  /** The ingress's defaults (see {@link #reference}). */
  public static final HaproxyTimeouts DEFAULTS = reference();

  public HaproxyTimeouts {
    check("head-timeout", request);
    check("client-idle-timeout", keepAlive);
    check("stream-idle-timeout", clientIdle);
    check("response-timeout", server);
  }

  /**
   * The ingress's defaults: its {@code reference.conf} alone, not {@code defaultReference()},
   * which system properties override (an operator's value there is checked where it is used,
   * with a clear error, not while this class loads).
   */
  static HaproxyTimeouts reference() {
    return fromIngress(ConfigFactory.parseResources(HaproxyTimeouts.class.getClassLoader(),
        "reference.conf").resolve(ConfigResolveOptions.noSystem()));
  }

  /**
   * The timeouts a node's ingress uses, read and checked where the splice reads them
   * ({@link SpliceSettings#fromConfig}).
   */
  public static HaproxyTimeouts fromIngress(Config config) {
    SpliceSettings splice = SpliceSettings.fromConfig(config);
    return new HaproxyTimeouts(splice.headTimeout(), splice.clientIdleTimeout(),
        splice.streamIdleTimeout(), splice.responseTimeout());
  }

  /** The {@code defaults} section's timeout lines. */
  void render(List<String> out) {
    out.add("  timeout client " + haproxy(clientIdle));
    out.add("  timeout server " + haproxy(server));
    out.add("  timeout http-request " + haproxy(request));
    out.add("  timeout http-keep-alive " + haproxy(keepAlive));
  }

  /** In whole seconds where it is, else in milliseconds (HAProxy's units). */
  static String haproxy(Duration timeout) {
    long millis = timeout.toMillis();
    return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
  }

  /** In words, for a message: "10 s", or "1500 ms" where it is not whole seconds. */
  static String words(Duration timeout) {
    long millis = timeout.toMillis();
    return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
  }

  private static void check(String key, Duration timeout) {
    Objects.requireNonNull(timeout, key);
    // HAProxy counts in milliseconds; 0 would mean no timeout at all.
    if (timeout.toMillis() < 1 || timeout.toMillis() > MAX_MILLIS) {
      throw new IllegalArgumentException(PREFIX + key + ": " + timeout
          + " (expected: 1ms to " + MAX_MILLIS + "ms, for HAProxy's timeouts)");
    }
  }
}
