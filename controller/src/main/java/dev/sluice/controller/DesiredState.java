package dev.sluice.controller;

import dev.sluice.core.config.ApplicationConfig;
import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.config.DeploymentPatch;
import dev.sluice.core.config.LlmConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The changes the controller API makes to the desired applications, as pure functions: each
 * gives the new whole desired state, or the reason it cannot (an unknown app or deployment),
 * leaving the current one untouched.
 */
final class DesiredState {

  /** The new desired state, or why there is none ({@code status}: 404). */
  record Change(ApplicationsConfig config, int status, String problem) {
    static Change to(ApplicationsConfig config) {
      return new Change(config, 200, "");
    }

    static Change notFound(String problem) {
      return new Change(null, 404, problem);
    }

    boolean ok() {
      return config != null;
    }
  }

  private DesiredState() {}

  static Change delete(ApplicationsConfig current, String app) {
    if (current.application(app).isEmpty()) {
      return Change.notFound("application '" + app + "' does not exist");
    }
    return Change.to(new ApplicationsConfig(current.applications().stream()
        .filter(a -> !a.name().equals(app)).toList()));
  }

  static Change patch(ApplicationsConfig current, String app, String deployment,
      DeploymentPatch patch) {
    ApplicationConfig application = current.application(app).orElse(null);
    if (application == null) {
      return Change.notFound("application '" + app + "' does not exist");
    }
    List<LlmConfig> llms = new ArrayList<>();
    boolean found = false;
    for (LlmConfig llm : application.llmConfigs()) {
      if (llm.deploymentName().equals(deployment)) {
        llms.add(new LlmConfig(llm.modelId(), llm.engine(), patch.applyTo(llm.deployment())));
        found = true;
      } else {
        llms.add(llm);
      }
    }
    if (!found) {
      return Change.notFound("deployment '" + deployment + "' does not exist in application '"
          + app + "'");
    }
    List<ApplicationConfig> apps = new ArrayList<>();
    for (ApplicationConfig each : current.applications()) {
      apps.add(each.name().equals(app)
          ? new ApplicationConfig(app, each.routePrefix(), llms) : each);
    }
    return Change.to(new ApplicationsConfig(apps));
  }
}
