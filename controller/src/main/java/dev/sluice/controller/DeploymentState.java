package dev.sluice.controller;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.config.ApplicationConfig;
import dev.sluice.core.config.LlmConfig;
import java.util.Objects;

/**
 * The controller's view of one desired deployment: its config and the spec version its replicas
 * should run, the replica count it aims at now (fixed, or the autoscaler's), and the status the
 * API shows.
 */
final class DeploymentState {

  /** Ray Serve's deployment statuses. */
  enum Status { UPDATING, HEALTHY, UNHEALTHY, UPSCALING, DOWNSCALING, DEPLOY_FAILED }

  final DeploymentId id;
  ApplicationConfig app;
  LlmConfig llm;
  String version;
  Autoscaler autoscaler;
  Status status = Status.UPDATING;
  String message = "";
  /** Why a replica it needs could not be placed in the last reconcile ("" when none). */
  String unplaced = "";
  /** A replica of the current version has reached RUNNING. */
  boolean versionServed;

  DeploymentState(DeploymentId id, ApplicationConfig app, LlmConfig llm) {
    this.id = id;
    update(app, llm, 0);
  }

  /** Takes a new config; {@code running} seeds a newly enabled autoscaler. */
  void update(ApplicationConfig app, LlmConfig llm, int running) {
    String next = version(llm);
    if (!next.equals(version)) {
      versionServed = false;
    }
    this.version = next;
    this.app = app;
    this.llm = llm;
    var autoscaling = llm.deployment().autoscaling();
    if (!autoscaling.enabled()) {
      autoscaler = null;
    } else if (autoscaler == null || !autoscaler.config().equals(autoscaling)) {
      autoscaler = new Autoscaler(autoscaling,
          autoscaler == null && running == 0 ? autoscaling.initialReplicas()
              : autoscaler == null ? running : autoscaler.target());
    }
  }

  long healthPeriodNanos() {
    return (long) (llm.deployment().healthCheckPeriodS() * 1e9);
  }

  double healthTimeoutSeconds() {
    return llm.deployment().healthCheckTimeoutS();
  }

  /** The replica count aimed at now. */
  int target() {
    return autoscaler != null ? autoscaler.target() : llm.deployment().numReplicas();
  }

  /**
   * What a replica runs: its engine, model and capacity. A change of any of these replaces the
   * replicas (a rolling update); routing, counts and timeouts apply without a restart.
   */
  static String version(LlmConfig llm) {
    return Integer.toHexString(Objects.hash(llm.modelId(), llm.engine(),
        llm.deployment().maxOngoingRequests()));
  }
}
