package dev.sluice.controller.dashboard;

import static dev.sluice.controller.dashboard.MetricMath.any;
import static dev.sluice.controller.dashboard.MetricMath.where;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.controller.Controller;
import dev.sluice.controller.api.ClusterReport;
import dev.sluice.core.NodeTopics;
import dev.sluice.core.cluster.SingletonWatch;
import dev.sluice.core.metrics.NodeStats;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;

/**
 * What the dashboard shows, rebuilt every second on a control node: the cluster as this node
 * sees it, the controller's status tree, and rates and quantiles from every node's
 * {@link NodeStats} (the same samples as their {@code /metrics}); plus the last 5 minutes of the
 * chart series. {@link #latest()} and {@link #history()} are what {@code GET /api/events} sends.
 */
public final class DashboardFeed implements AutoCloseable {

  /**
   * The metric families this feed reads from every node's {@link NodeStats} (names as the
   * registry knows them, without suffixes): what each node samples and publishes.
   */
  public static final java.util.Set<String> FAMILIES = java.util.Set.of(
      "sluice_ingress_requests", "sluice_ingress_ttft_seconds",
      "sluice_ingress_delivered_tokens", "sluice_replica_ongoing", "sluice_replica_slots",
      "sluice_replica_generated_tokens", "sluice_replica_ttft_seconds",
      "sluice_router_decisions", "sluice_router_affinity_rate", "sluice_capacity_in_flight",
      "sluice_capacity_capacity", "sluice_actor_messages", "sluice_actor_mailbox_depth",
      "sluice_actor_processing_seconds");
  static final int HISTORY_POINTS = 300;
  /**
   * Rates are over the last 10 s (as {@code rate(x[10s])}): a shorter window makes a counter that
   * moves in bursts (the controller's once-a-second tick sends that second's health checks
   * together) swing from one refresh to the next, since the window holds one burst more or less.
   */
  static final long RATE_WINDOW_MS = 10_000;
  private static final long QUANTILE_WINDOW_MS = 10_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ActorSystem<?> system;
  private final ActorRef<Controller.Command> controller;
  private final Duration askTimeout;
  private final NodeStatsStore store = new NodeStatsStore();
  private final Deque<ObjectNode> history = new ArrayDeque<>();
  private final Cancellable tick;
  private volatile String latest;
  private volatile JsonNode lastStatus;

  public DashboardFeed(ActorSystem<?> system, ActorRef<Controller.Command> controller,
      Duration askTimeout, String subscriberName) {
    this.system = system;
    this.controller = controller;
    this.askTimeout = askTimeout;
    system.systemActorOf(subscriber(store), subscriberName,
        org.apache.pekko.actor.typed.Props.empty());
    this.latest = build(null, "starting").toString();
    this.tick = system.scheduler().scheduleWithFixedDelay(Duration.ZERO, Duration.ofSeconds(1),
        this::refresh, system.executionContext());
  }

  private static Behavior<NodeStats> subscriber(NodeStatsStore store) {
    return Behaviors.setup(context -> {
      NodeTopics.get(context.getSystem()).nodeStats().tell(Topic.subscribe(context.getSelf()));
      return Behaviors.receiveMessage(stats -> {
        store.add(stats);
        return Behaviors.same();
      });
    });
  }

  /** The newest snapshot (JSON). */
  public String latest() {
    return latest;
  }

  /** The chart points of the last 5 minutes, oldest first (JSON: {"points": [...]}). */
  public String history() {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode points = root.putArray("points");
    synchronized (history) {
      history.forEach(points::add);
    }
    return root.toString();
  }

  private void refresh() {
    if (SingletonWatch.get(system).unavailable().isPresent()) {
      publish(build(lastStatus, "the controller singleton's node is unreachable"));
      return;
    }
    AskPattern.<Controller.Command, Controller.StatusDocument>ask(controller,
            Controller.GetStatus::new, askTimeout, system.scheduler())
        .whenComplete((document, failure) -> {
          JsonNode status = null;
          String error = null;
          if (failure != null) {
            error = "the controller singleton did not answer within " + askTimeout.toMillis()
                + " ms";
          } else {
            try {
              status = JSON.readTree(document.json());
              lastStatus = status;
            } catch (Exception e) {
              error = "unreadable status: " + e.getMessage();
            }
          }
          publish(build(status != null ? status : lastStatus, error));
        });
  }

  private void publish(ObjectNode snapshot) {
    ObjectNode point = JSON.createObjectNode();
    point.put("at", snapshot.get("at").asLong());
    point.setAll((ObjectNode) snapshot.get("totals"));
    synchronized (history) {
      history.addLast(point);
      while (history.size() > HISTORY_POINTS) {
        history.removeFirst();
      }
    }
    latest = snapshot.toString();
  }

  private ObjectNode build(JsonNode status, String controllerError) {
    long now = System.currentTimeMillis();
    List<NodeStatsStore.Span> rates = store.spans(now, RATE_WINDOW_MS);
    List<NodeStatsStore.Span> slow = store.spans(now, QUANTILE_WINDOW_MS);
    ObjectNode root = JSON.createObjectNode();
    root.put("at", now);
    root.put("self", system.address().toString());
    root.set("cluster", ClusterReport.tree(system));
    // the replica nodes' GPUs as the controller allocates them (the members table shows them)
    root.set("gpus", status != null && status.has("gpus") ? status.get("gpus")
        : JSON.createObjectNode());
    ArrayNode apps = root.putArray("applications");
    if (status != null && status.has("applications")) {
      for (JsonNode app : status.get("applications")) {
        ObjectNode copy = app.deepCopy();
        copy.remove("deployed_app_config");  // the page shows state, not config (engine env)
        for (JsonNode deployment : copy.withArray("deployments")) {
          DeploymentFigures.add((ObjectNode) deployment, app.get("name").asText(), rates, slow);
        }
        apps.add(copy);
      }
    }
    if (controllerError == null) {
      root.putNull("controller_error");
    } else {
      root.put("controller_error", controllerError);
    }
    root.set("actors", actors(rates, slow));
    root.set("totals", totals(rates, slow));
    root.set("rejections_per_s", JSON.valueToTree(MetricMath.rateBy(rates,
        "sluice_ingress_requests_total", where("status", "503"), "reason")));
    return root;
  }

  private static ArrayNode actors(List<NodeStatsStore.Span> rates,
      List<NodeStatsStore.Span> slow) {
    ArrayNode rows = JSON.createArrayNode();
    Map<String, Double> messages = MetricMath.rateBy(rates, "sluice_actor_messages_total", any(),
        "actor");
    Map<String, Double> depths = MetricMath.gaugeBy(rates, "sluice_actor_mailbox_depth", any(),
        "actor");
    java.util.SortedSet<String> kinds = new java.util.TreeSet<>(messages.keySet());
    kinds.addAll(depths.keySet());
    for (String kind : kinds) {
      ObjectNode row = rows.addObject();
      row.put("actor", kind);
      row.put("messages_per_s", round(messages.getOrDefault(kind, 0.0)));
      row.put("mailbox_depth", depths.getOrDefault(kind, 0.0).longValue());
      putMs(row, "processing_p99_ms", MetricMath.quantile(slow,
          "sluice_actor_processing_seconds", where("actor", kind), 0.99));
    }
    return rows;
  }

  private static ObjectNode totals(List<NodeStatsStore.Span> rates,
      List<NodeStatsStore.Span> slow) {
    ObjectNode totals = JSON.createObjectNode();
    totals.put("tokens_per_s", round(MetricMath.rate(rates,
        "sluice_replica_generated_tokens_total", any())));
    totals.put("requests_per_s", round(MetricMath.rate(rates, "sluice_ingress_requests_total",
        any())));
    totals.put("errors_per_s", round(MetricMath.rate(rates, "sluice_ingress_requests_total",
        sample -> sample.label("status") != null && sample.label("status").startsWith("5"))));
    putMs(totals, "ttft_p50_ms", MetricMath.quantile(rates, "sluice_ingress_ttft_seconds",
        any(), 0.5));
    putMs(totals, "ttft_p99_ms", MetricMath.quantile(rates, "sluice_ingress_ttft_seconds",
        any(), 0.99));
    // What the replicas saw, whichever data plane brought the requests (HAProxy's are in none
    // of the ingress's figures above): requests that got a first token, and that token's time
    // from the slot taken (no proxy hop or route in it).
    totals.put("replica_requests_per_s", round(MetricMath.rate(rates,
        "sluice_replica_ttft_seconds_count", any())));
    putMs(totals, "replica_ttft_p50_ms", MetricMath.quantile(rates, "sluice_replica_ttft_seconds",
        any(), 0.5));
    return totals;
  }

  static void putMs(ObjectNode node, String field, Double seconds) {
    if (seconds == null) {
      node.putNull(field);
    } else {
      node.put(field, Math.round(seconds * 1e5) / 100.0);
    }
  }

  static double round(double value) {
    return Math.round(value * 100) / 100.0;
  }

  @Override
  public void close() {
    tick.cancel();
  }
}
