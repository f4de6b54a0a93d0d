package dev.sluice.controller.dashboard;

import static dev.sluice.controller.dashboard.MetricMath.where;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * The live figures the dashboard adds to a deployment of the controller's status tree: routing
 * decisions per second, refusals by reason, the affinity rate, requests in flight against
 * the replicas' slots (their ongoing requests and max_ongoing_requests), and per
 * replica its time to first token (p50 over 10 s) and tokens per second.
 */
final class DeploymentFigures {

  private DeploymentFigures() {}

  static void add(ObjectNode deployment, String app, List<NodeStatsStore.Span> rates,
      List<NodeStatsStore.Span> slow) {
    String id = app + "#" + deployment.path("name").asText();
    deployment.put("decisions_per_s", DashboardFeed.round(MetricMath.rate(rates,
        "sluice_router_decisions_total", where("deployment", id))));
    ObjectNode refusals = deployment.putObject("rejections_per_s");
    MetricMath.rateBy(rates, "sluice_router_decisions_total", where("deployment", id)
            .and(sample -> !"routed".equals(sample.label("outcome"))), "outcome")
        .forEach((outcome, rate) -> refusals.put(outcome.equals("no_replica") ? "no_replicas"
            : outcome, DashboardFeed.round(rate)));
    Map<String, Double> affinity = MetricMath.gaugeBy(rates, "sluice_router_affinity_rate",
        where("deployment", id), "deployment");
    if (affinity.isEmpty()) {
      deployment.putNull("affinity_rate");
    } else {
      deployment.put("affinity_rate", DashboardFeed.round(affinity.get(id)));
    }
    Map<String, Double> inFlight = MetricMath.gaugeBy(rates, "sluice_replica_ongoing",
        where("deployment", id), "deployment");
    Map<String, Double> capacity = MetricMath.gaugeBy(rates, "sluice_replica_slots",
        where("deployment", id), "deployment");
    if (capacity.isEmpty()) {
      deployment.putNull("capacity");
    } else {
      ObjectNode figures = deployment.putObject("capacity");
      figures.put("in_flight", inFlight.getOrDefault(id, 0.0));
      figures.put("capacity", capacity.get(id));
    }
    // One pass per figure for every replica of the deployment: a pass per replica made the
    // feed quadratic in replicas (1,000 replicas took both cores of a node).
    Map<String, Double> ttft = MetricMath.quantileBy(slow, "sluice_replica_ttft_seconds",
        where("deployment", id), "replica", 0.5);
    Map<String, Double> tokens = MetricMath.rateBy(rates,
        "sluice_replica_generated_tokens_total", where("deployment", id), "replica");
    for (JsonNode replica : deployment.withArray("replicas")) {
      String replicaId = replica.path("replica_id").asText();
      ObjectNode row = (ObjectNode) replica;
      DashboardFeed.putMs(row, "ttft_p50_ms", ttft.get(replicaId));
      row.put("tokens_per_s", DashboardFeed.round(tokens.getOrDefault(replicaId, 0.0)));
    }
  }
}
