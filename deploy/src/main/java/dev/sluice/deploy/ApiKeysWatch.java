package dev.sluice.deploy;

import dev.sluice.ingress.edge.ApiKeys;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads an ingress's API-keys file again every {@code sluice.ingress.api-keys-reload-interval}
 * ({@link ApiKeys#reload()}), logs what changed (counts, never a key), and tells whoever else
 * checks the keys (the HAProxy data plane). Stops with the actor system.
 */
final class ApiKeysWatch {

  private static final Logger log = LoggerFactory.getLogger(ApiKeysWatch.class);

  private ApiKeysWatch() {}

  static void start(ActorSystem<?> system, ApiKeys keys, Duration interval, Runnable onChange) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("sluice.ingress.api-keys-reload-interval: " + interval
          + " (expected: > 0)");
    }
    system.scheduler().scheduleWithFixedDelay(interval, interval, () ->
        keys.reload().ifPresent(reload -> {
          if (reload.warning()) {
            log.warn("SECURITY: {}", reload.message());
          } else {
            log.info("{}", reload.message());
          }
          onChange.run();
        }), system.executionContext());
  }
}
