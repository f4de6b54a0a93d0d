package dev.sluice.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.config.ApplicationsConfigWriter;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The controller's status tree as the API shows it (app → deployments → replicas), and each
 * deployment's status (Ray Serve's values) from its replicas.
 */
final class StatusReport {

  private static final ObjectMapper JSON = new ObjectMapper();

  private StatusReport() {}

  /**
   * UPDATING while a new spec rolls out or has never served; DEPLOY_FAILED (never served) or
   * UNHEALTHY when replicas keep failing; UPSCALING / DOWNSCALING on the way to the target;
   * HEALTHY at it. Only {@code serving} replicas count as running: a RUNNING replica on a node
   * that is unreachable serves nothing until it is back or replaced.
   */
  static void updateStatus(DeploymentState state, List<ReplicaRecord> records,
      Predicate<ReplicaRecord> serving, int failures, String lastFailure) {
    int target = state.target();
    long running = records.stream()
        .filter(r -> serving.test(r) && r.specVersion.equals(state.version)).count();
    long unreachable = records.stream().filter(r -> r.isRunning() && !serving.test(r)).count();
    long outdated = records.stream()
        .filter(r -> r.isLive() && !r.specVersion.equals(state.version)).count();
    long live = records.stream().filter(ReplicaRecord::isLive).count();
    long leaving = records.stream().filter(r -> !r.isLive()).count();
    if (failures >= 3 && running < target) {
      state.status = state.versionServed ? DeploymentState.Status.UNHEALTHY
          : DeploymentState.Status.DEPLOY_FAILED;
      state.message = failures + " replica failures in a row; the last: " + lastFailure;
    } else if (outdated > 0) {
      state.status = DeploymentState.Status.UPDATING;
      state.message = "rolling update: " + running + " of " + target
          + " replicas on the new spec, " + outdated + " to replace";
    } else if (!state.versionServed && target > 0) {
      state.status = DeploymentState.Status.UPDATING;
      state.message = "starting " + target + " replica(s)";
    } else if (running < target) {
      state.status = DeploymentState.Status.UPSCALING;
      state.message = running + " of " + target + " replicas running"
          + (unreachable > 0 ? ", " + unreachable + " on unreachable nodes" : "");
    } else if (live > target || leaving > 0) {
      state.status = DeploymentState.Status.DOWNSCALING;
      state.message = (live - target + leaving) + " replica(s) draining or stopping";
    } else {
      state.status = DeploymentState.Status.HEALTHY;
      state.message = "";
    }
    if (!state.unplaced.isEmpty()) {
      state.message += "; " + state.unplaced;
    }
  }

  static String json(Collection<DeploymentState> deployments, Collection<ReplicaRecord> replicas,
      Predicate<ReplicaRecord> serving, Map<DeploymentId, ReplicaSet> published,
      int replicaNodes, ObjectNode gpus) {
    ObjectNode root = JSON.createObjectNode();
    root.put("replica_nodes", replicaNodes);
    root.set("gpus", gpus);  // offered by the replica nodes, allocated to replicas (GpuLedger)
    ArrayNode apps = root.putArray("applications");
    Map<String, ArrayNode> byApp = new LinkedHashMap<>();
    for (DeploymentState state : deployments) {
      ArrayNode list = byApp.computeIfAbsent(state.app.name(), name -> {
        ObjectNode app = apps.addObject();
        app.put("name", name);
        app.put("route_prefix", state.app.routePrefix());
        // the app's desired config as stored, defaults filled in (Ray's deployed_app_config)
        app.set("deployed_app_config", ApplicationsConfigWriter.tree(state.app));
        return app.putArray("deployments");
      });
      deployment(list.addObject(), state, replicas, serving, published.get(state.id));
    }
    return root.toString();
  }

  private static void deployment(ObjectNode node, DeploymentState state,
      Collection<ReplicaRecord> replicas, Predicate<ReplicaRecord> serving, ReplicaSet published) {
    node.put("name", state.id.name());
    node.put("model_id", state.llm.modelId());
    node.put("status", state.status.name());
    node.put("message", state.message);
    node.put("target_replicas", state.target());
    List<ReplicaRecord> own = replicas.stream()
        .filter(r -> r.info.id().deploymentId().equals(state.id)).toList();
    node.put("current_replicas", own.stream().filter(serving).count());
    Map<ReplicaState, Integer> byState = new EnumMap<>(ReplicaState.class);
    own.forEach(r -> byState.merge(r.state(), 1, Integer::sum));
    ObjectNode states = node.putObject("replicas_by_state");
    byState.forEach((s, count) -> states.put(s.name(), count));
    node.put("policy", state.llm.deployment().requestRouter().requestRouterClass());
    node.put("spec_version", state.version);
    node.put("published_version", published == null ? 0 : published.version());
    if (state.autoscaler == null) {
      node.putNull("autoscaling");
    } else {
      autoscaling(node.putObject("autoscaling"), state.autoscaler);
    }
    ArrayNode rows = node.putArray("replicas");
    for (ReplicaRecord record : own) {
      ObjectNode row = rows.addObject();
      row.put("replica_id", record.info.id().toString());
      row.put("node", record.info.nodeAddress());
      if (record.info.port() > 0) {
        row.put("endpoint", "http://" + record.info.host() + ":" + record.info.port());
      } else {
        row.putNull("endpoint");
      }
      if (record.info.dataPort() > 0) {  // an external engine: completions go straight to it
        row.put("engine_endpoint", "http://" + record.info.host() + ":" + record.info.dataPort());
      }
      if (!record.gpus.isEmpty()) {  // its server's CUDA_VISIBLE_DEVICES (num_gpus)
        record.gpus.forEach(row.putArray("gpus")::add);
      }
      row.put("state", record.state().name());
      row.put("serving", serving.test(record));  // in the published set: RUNNING, node reachable
      row.put("ongoing", record.ongoing);
      row.put("failed_health_checks", record.failedChecks);  // in a row; replaced at the threshold
      row.put("spec_version", record.specVersion);
      row.put("started_at", Instant.ofEpochMilli(record.startedAtMillis).toString());
    }
  }

  private static void autoscaling(ObjectNode node, Autoscaler autoscaler) {
    var config = autoscaler.config();
    node.put("min_replicas", config.minReplicas());
    node.put("max_replicas", config.maxReplicas());
    node.put("target_ongoing_requests", config.targetOngoingRequests());
    node.put("upscale_delay_s", config.upscaleDelayS());
    node.put("downscale_delay_s", config.downscaleDelayS());
    node.put("look_back_period_s", config.lookBackPeriodS());
    node.put("desired_replicas", autoscaler.desired());
    autoscaler.lastDecision().ifPresentOrElse(decision -> {
      ObjectNode last = node.putObject("last_decision");
      last.put("at", Instant.ofEpochMilli(decision.atMillis()).toString());
      last.put("from", decision.from());
      last.put("to", decision.to());
      last.put("total_load", decision.totalLoad());
      last.put("running", decision.running());
      last.put("reason", decision.reason());
    }, () -> node.putNull("last_decision"));
  }
}
