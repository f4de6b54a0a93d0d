package dev.sluice.deploy;

import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.ingress.edge.ApiKeys;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads an ingress's API-keys file again every {@code sluice.ingress.api-keys-reload-interval}
 * ({@link ApiKeys#reload()}), logs what changed (counts, never a key), counts it in
 * {@code sluice_ingress_api_keys_reloads_total}, keeps {@code sluice_ingress_api_keys} current,
 * and tells whoever else checks the keys (the HAProxy data plane). Stops with the actor system.
 * Nothing to watch, and no metric, on an ingress that needs no key.
 */
final class ApiKeysWatch {

  private static final Logger log = LoggerFactory.getLogger(ApiKeysWatch.class);

  private ApiKeysWatch() {}

  static void start(ActorSystem<?> system, ApiKeys keys, Duration interval, SluiceMetrics metrics,
      Runnable onChange) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("sluice.ingress.api-keys-reload-interval: " + interval
          + " (expected: > 0)");
    }
    if (!keys.enabled()) {
      return;
    }
    Gauge accepted = metrics.gauge("ingress_api_keys",
        "API keys the ingress (and its HAProxy data plane) accepts now; 0 refuses every request.");
    Counter reloads = metrics.counter("ingress_api_keys_reloads_total",
        "Changes of the API-keys file, by outcome (changed: the keys in effect were replaced; "
            + "kept: the file could not be read or used, the keys in effect stay).", "outcome");
    accepted.set(keys.size());
    system.scheduler().scheduleWithFixedDelay(interval, interval, () ->
        keys.reload().ifPresent(reload -> {
          if (reload.warning()) {
            log.warn("SECURITY: {}", reload.message());
          } else {
            log.info("{}", reload.message());
          }
          reloads.labelValues(reload.changed() ? "changed" : "kept").inc();
          accepted.set(keys.size());
          onChange.run();
        }), system.executionContext());
  }
}
