package dev.sluice.controller;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * Settings of the controller singleton, read once from {@code sluice.controller}.
 *
 * @param reconcileInterval how often desired and actual state are compared
 * @param publishInterval how often every replica set is re-published even without a change (so
 *     late subscribers catch up)
 * @param replicaStartupTimeout a replica not RUNNING after this long is replaced
 * @param restartBackoffMin first delay before replacing a failed replica; doubles per failure
 * @param restartBackoffMax upper bound of that delay
 */
public record ControllerSettings(
    Duration reconcileInterval,
    Duration publishInterval,
    Duration replicaStartupTimeout,
    Duration restartBackoffMin,
    Duration restartBackoffMax) {

  public static ControllerSettings fromConfig(Config root) {
    Config config = root.getConfig("sluice.controller");
    return new ControllerSettings(
        positive(config, "reconcile-interval"),
        positive(config, "publish-interval"),
        positive(config, "replica-startup-timeout"),
        positive(config, "restart-backoff-min"),
        positive(config, "restart-backoff-max"));
  }

  private static Duration positive(Config config, String key) {
    Duration value = config.getDuration(key);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(
          "sluice.controller." + key + ": " + value + " (expected: > 0)");
    }
    return value;
  }
}
