package dev.sluice.controller;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.metrics.SluiceMetrics;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The controller's metrics, labelled by deployment ({@code app#deployment}, as everywhere):
 * replicas by state,
 * target replicas, replica starts, stops and replacements, scaling decisions, and how long a
 * reconcile pass takes; and the GPUs each replica node offers and how many are allocated. Gauges
 * of deployments that were removed, and of nodes that left, are dropped.
 */
final class ControllerMetrics {

  private static final double[] RECONCILE_SECONDS = {1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 0.01,
      0.05, 0.1, 0.5};

  private final Gauge replicasByState;
  private final Gauge target;
  private final Counter starts;
  private final Counter stops;
  private final Counter replacements;
  private final Counter scaling;
  private final Histogram reconcile;
  private final Gauge gpus;
  private Set<String> shown = new HashSet<>();
  private Set<String> gpuNodes = new HashSet<>();

  ControllerMetrics(SluiceMetrics metrics) {
    this.replicasByState = metrics.gauge("controller_replicas",
        "Replicas the controller tracks, by deployment and state.", "deployment", "state");
    this.target = metrics.gauge("controller_target_replicas",
        "Replicas each deployment should run (num_replicas or the autoscaler's target).",
        "deployment");
    this.starts = metrics.counter("controller_replica_starts_total",
        "Replicas the controller asked a node to start.", "deployment");
    this.stops = metrics.counter("controller_replica_stops_total",
        "Replicas the controller told to drain and stop (scale-down, rollout, removal).",
        "deployment");
    this.replacements = metrics.counter("controller_replica_replacements_total",
        "Replicas that failed (unhealthy, did not start, crashed) and are replaced.",
        "deployment");
    this.scaling = metrics.counter("controller_scaling_decisions_total",
        "Autoscaler decisions that changed a deployment's target, by direction.",
        "deployment", "outcome");
    this.reconcile = metrics.histogram("controller_reconcile_seconds",
        "Time one reconcile pass (desired vs actual, over every deployment) took.",
        RECONCILE_SECONDS);
    this.gpus = metrics.gauge("controller_gpus",
        "GPUs a replica node offers (state offered) and those allocated to replicas there.",
        "node", "state");
  }

  static String label(DeploymentId id) {
    return id.toString();
  }

  void started(DeploymentId id) {
    starts.labelValues(label(id)).inc();
  }

  void stopped(DeploymentId id) {
    stops.labelValues(label(id)).inc();
  }

  void replaced(DeploymentId id) {
    replacements.labelValues(label(id)).inc();
  }

  void scaled(DeploymentId id, int from, int to) {
    scaling.labelValues(label(id), to > from ? "up" : "down").inc();
  }

  /** Drops every gauge (this controller stopped; the next one reports them). */
  void forget() {
    dropDeployments(shown);
    shown = new HashSet<>();
    dropNodes(gpuNodes);
    gpuNodes = new HashSet<>();
  }

  private void dropDeployments(Set<String> gone) {
    for (String deployment : gone) {
      target.remove(deployment);
      for (ReplicaState s : ReplicaState.values()) {
        replicasByState.remove(deployment, s.name());
      }
    }
  }

  private void dropNodes(Set<String> gone) {
    for (String node : gone) {
      gpus.remove(node, "offered");
      gpus.remove(node, "allocated");
    }
  }

  /**
   * After a reconcile pass: its time, every deployment's replicas by state and target, and the
   * nodes' GPUs.
   */
  void reconciled(long nanos, Collection<DeploymentState> deployments, ReplicaTable replicas) {
    reconcile.labelValues().observe(nanos / 1e9);
    Set<String> now = new HashSet<>();
    for (DeploymentState state : deployments) {
      String deployment = label(state.id);
      now.add(deployment);
      Map<ReplicaState, Integer> byState = new EnumMap<>(ReplicaState.class);
      for (ReplicaState s : ReplicaState.values()) {
        byState.put(s, 0);
      }
      replicas.of(state.id).forEach(record -> byState.merge(record.state(), 1, Integer::sum));
      byState.forEach((s, count) -> replicasByState.labelValues(deployment, s.name()).set(count));
      target.labelValues(deployment).set(state.target());
    }
    shown.removeAll(now);
    dropDeployments(shown);
    shown = now;
    Set<String> nodes = new HashSet<>();
    for (JsonNode node : replicas.gpuReport().path("nodes")) {
      String address = node.path("node").asText();
      nodes.add(address);
      gpus.labelValues(address, "offered").set(node.path("offered").asInt());
      gpus.labelValues(address, "allocated").set(node.path("allocated").asInt());
    }
    gpuNodes.removeAll(nodes);
    dropNodes(gpuNodes);
    gpuNodes = nodes;
  }
}
