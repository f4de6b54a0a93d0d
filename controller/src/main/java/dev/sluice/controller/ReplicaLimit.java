package dev.sluice.controller;

import dev.sluice.core.config.ApplicationConfig;
import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.config.ConfigException;
import dev.sluice.core.config.DeploymentConfig;
import dev.sluice.core.config.DeploymentPatch;

/**
 * The most replicas one deployment may ask for ({@code sluice.controller.max-replicas-per-
 * deployment}): a typo such as {@code sluice scale llm sim 5000} for 50 would otherwise have the
 * controller start thousands of replicas at once and swamp the replica nodes and itself. Checked
 * where a config comes in (the API, a control node's {@code --config}); nothing changes when it
 * fails.
 */
public final class ReplicaLimit {

  private static final String KEY = "sluice.controller.max-replicas-per-deployment";

  private ReplicaLimit() {}

  /** Every deployment's {@code num_replicas}, or its autoscaling {@code max_replicas}. */
  public static void check(ApplicationsConfig config, int max) {
    for (int a = 0; a < config.applications().size(); a++) {
      ApplicationConfig app = config.applications().get(a);
      for (int l = 0; l < app.llmConfigs().size(); l++) {
        DeploymentConfig deployment = app.llmConfigs().get(l).deployment();
        String path = "applications[" + a + "].llm_configs[" + l + "].deployment_config.";
        if (deployment.autoscaling().enabled()) {
          check(path + "autoscaling_config.max_replicas", deployment.autoscaling().maxReplicas(),
              max);
        } else {
          check(path + "num_replicas", deployment.numReplicas(), max);
        }
      }
    }
  }

  /** A {@code PATCH}'s {@code num_replicas}, or its autoscaling {@code max_replicas}. */
  public static void check(DeploymentPatch patch, int max) {
    if (patch.autoscaling().enabled()) {
      check("autoscaling_config.max_replicas", patch.autoscaling().maxReplicas(), max);
    } else {
      check("num_replicas", patch.numReplicas(), max);
    }
  }

  private static void check(String field, int replicas, int max) {
    if (replicas > max) {
      throw new ConfigException(field + ": " + replicas + " (expected: <= " + max + ", the most "
          + "replicas of one deployment this cluster allows: " + KEY + ")");
    }
  }
}
