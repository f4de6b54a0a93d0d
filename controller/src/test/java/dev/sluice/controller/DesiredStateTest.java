package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.config.ApplicationsConfigParser;
import dev.sluice.core.config.DeploymentPatch;
import org.junit.jupiter.api.Test;

class DesiredStateTest {

  private static final ApplicationsConfig CURRENT = ApplicationsConfigParser.parse("""
      applications:
        - name: a
          route_prefix: /a
          llm_configs:
            - model_loading_config: {model_id: m1}
              deployment_config: {num_replicas: 2}
            - model_loading_config: {model_id: m2}
        - name: b
          route_prefix: /b
          llm_configs:
            - model_loading_config: {model_id: m3}
      """);

  @Test
  void aPatchChangesOneDeploymentOnly() {
    DesiredState.Change change = DesiredState.patch(CURRENT, "a", "m1",
        DeploymentPatch.numReplicas(5));

    assertThat(change.ok()).isTrue();
    var apps = change.config().applications();
    assertThat(apps.get(0).llmConfigs().get(0).deployment().numReplicas()).isEqualTo(5);
    assertThat(apps.get(0).llmConfigs().get(1)).isEqualTo(CURRENT.applications().get(0)
        .llmConfigs().get(1));
    assertThat(apps.get(1)).isEqualTo(CURRENT.applications().get(1));
  }

  @Test
  void unknownAppsAndDeploymentsAreNamed() {
    DesiredState.Change noApp = DesiredState.patch(CURRENT, "zz", "m1",
        DeploymentPatch.numReplicas(1));
    assertThat(noApp.ok()).isFalse();
    assertThat(noApp.status()).isEqualTo(404);
    assertThat(noApp.problem()).contains("'zz'");
    assertThat(DesiredState.patch(CURRENT, "a", "m9", DeploymentPatch.numReplicas(1))
        .problem()).contains("'m9'").contains("'a'");
    assertThat(DesiredState.delete(CURRENT, "zz").problem()).contains("'zz'");
  }

  @Test
  void deletingAnAppKeepsTheOthers() {
    assertThat(DesiredState.delete(CURRENT, "a").config().applications())
        .containsExactly(CURRENT.applications().get(1));
  }
}
