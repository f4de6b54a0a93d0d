package dev.sluice.controller;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * Settings of the controller singleton and its API, read once from {@code sluice.controller}.
 *
 * @param reconcileInterval how often desired and actual state are compared
 * @param publishInterval how often every replica set is re-published even without a change (so
 *     late subscribers catch up)
 * @param replicaStartupTimeout a replica not RUNNING after this long is replaced
 * @param restartBackoffMin first delay before replacing a failed replica; doubles per failure
 * @param restartBackoffMax upper bound of that delay
 * @param drainDelay between a replica leaving the published set and being told to drain
 * @param writeTimeout how long a write of the desired state may take to reach a majority
 * @param orphanGrace the drain grace of a replica whose deployment was removed
 * @param apiHost interface of the controller API (8265)
 * @param apiPort its port; negative disables it
 * @param apiAskTimeout how long the API waits for the singleton before answering 503
 * @param adoptionTimeout how long a new controller waits for the replica nodes to say what they
 *     run before it starts what is missing
 * @param maxReplicasPerDeployment the most replicas one deployment may ask for ({@link
 *     ReplicaLimit})
 * @param healthCheckFailureThreshold health checks failed in a row before a replica is replaced
 * @param maxSurge how many new replicas a rolling update starts at a time
 *     ({@code rolling-update-max-surge})
 */
public record ControllerSettings(
    Duration reconcileInterval,
    Duration publishInterval,
    Duration replicaStartupTimeout,
    Duration restartBackoffMin,
    Duration restartBackoffMax,
    Duration drainDelay,
    Duration writeTimeout,
    Duration orphanGrace,
    String apiHost,
    int apiPort,
    Duration apiAskTimeout,
    Duration adoptionTimeout,
    int maxReplicasPerDeployment,
    int healthCheckFailureThreshold,
    Rollout.Surge maxSurge) {

  public static ControllerSettings fromConfig(Config root) {
    Config config = root.getConfig("sluice.controller");
    return new ControllerSettings(
        positive(config, "reconcile-interval"),
        positive(config, "publish-interval"),
        positive(config, "replica-startup-timeout"),
        positive(config, "restart-backoff-min"),
        positive(config, "restart-backoff-max"),
        config.getDuration("drain-delay"),
        positive(config, "write-timeout"),
        config.getDuration("orphan-grace"),
        config.getString("api.host"),
        config.getInt("api.port"),
        positive(config, "api.ask-timeout"),
        positive(config, "adoption-timeout"),
        atLeastOne(config, "max-replicas-per-deployment"),
        atLeastOne(config, "health-check-failure-threshold"),
        Rollout.Surge.parse("sluice.controller.rolling-update-max-surge",
            config.getString("rolling-update-max-surge")));
  }

  private static int atLeastOne(Config config, String key) {
    int value = config.getInt(key);
    if (value < 1) {
      throw new IllegalArgumentException(
          "sluice.controller." + key + ": " + value + " (expected: >= 1)");
    }
    return value;
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
