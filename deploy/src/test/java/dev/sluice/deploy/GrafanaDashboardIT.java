package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard in {@code deploy/grafana/} against a real Prometheus (Debian's
 * {@code prometheus}) scraping a real node under traffic: every panel's query runs without an
 * error, and the panels that must show something while requests flow do.
 */
class GrafanaDashboardIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path DASHBOARD = Path.of("grafana", "sluice-dashboard.json");
  private static final int PROMETHEUS_PORT = 19090;

  /** Every panel query of the dashboard, by panel title, with the template variables set to All. */
  private static Map<String, String> queries() throws Exception {
    JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
    Map<String, String> queries = new LinkedHashMap<>();
    List<JsonNode> panels = new ArrayList<>();
    dashboard.path("panels").forEach(panels::add);
    for (int i = 0; i < panels.size(); i++) {
      JsonNode panel = panels.get(i);
      panel.path("panels").forEach(panels::add);  // collapsed rows hold their panels
      int n = 0;
      for (JsonNode target : panel.path("targets")) {
        String expr = target.path("expr").asText().replace("${deployment}", ".*")
            .replace("$deployment", ".*").replace("${instance}", ".*").replace("$instance", ".*")
            .replace("$__rate_interval", "1m");
        queries.put(panel.path("title").asText() + " #" + (++n), expr);
      }
    }
    return queries;
  }

  @Test
  void everyPanelQueryRunsAndTheBusyOnesShowData() throws Exception {
    Map<String, String> queries = queries();
    assertThat(queries).hasSizeGreaterThan(30);
    try (SluiceNode node = TestNodes.local(TestNodes.app(2, 5, 2, 32), ConfigFactory.empty());
        TestPrometheus prometheus = TestPrometheus.start(PROMETHEUS_PORT,
            node.metricsPort().orElseThrow())) {
      // Prometheus hands its targets to the scraper a few seconds after it is ready.
      Await.untilOk(Duration.ofSeconds(30), "the node scraped", () -> prometheus.query("up == 1")
          .size() == 1);
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
      while (System.nanoTime() < end) {  // traffic over several scrapes, so rates have data
        TestNodes.post(node.ingressPort().orElseThrow(), "/v1/chat/completions",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"graph me\"}],\"stream\":true}");
      }
      try {
        Await.untilOk(Duration.ofSeconds(20), "scraped traffic", () -> {
          JsonNode rate = prometheus.query("sum(rate(sluice_ingress_requests_total[1m]))");
          return rate.size() == 1 && rate.get(0).path("value").get(1).asDouble() > 0;
        });
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "; " + prometheus.diagnostics(), e);
      }

      List<String> empty = new ArrayList<>();
      for (Map.Entry<String, String> panel : queries.entrySet()) {
        JsonNode result;
        try {
          result = prometheus.query(panel.getValue());
        } catch (IllegalStateException e) {
          throw new AssertionError(panel.getKey() + ": " + e.getMessage(), e);
        }
        if (result.isEmpty()) {
          empty.add(panel.getKey());
        }
      }
      // Panels of events this run did not cause (fallbacks, waiters, aborts, scaling...) may
      // be empty; these must not be.
      List<String> busy = List.of("Tokens/s #1", "Tokens/s #2", "Requests/s by status #1",
          "TTFT p50 / p99 (completions) #1", "TTFT p50 / p99 (completions) #2",
          "Request duration p50 / p99 (completions) #1", "Streams open #1",
          "Route latency p99 #1", "Decisions/s by deployment and outcome #1",
          "Decision latency p99 by policy #1", "Replicas known by deployment #1",
          "In flight vs capacity per replica #1", "In flight vs capacity per replica #2",
          "Ongoing per replica #1", "Tokens/s per replica #1",
          "Replica TTFT p50 per replica #1", "Replicas by state #1", "Target replicas #1",
          "Replica starts / stops / replacements #1", "Reconcile time p99 #1",
          "Messages/s by actor #1", "Processing time p99 by actor #1",
          "Mailbox depth by actor #1", "Cluster members by status #1",
          "Unreachable members #1", "Heap used #1", "Threads #1");
      assertThat(queries.keySet()).containsAll(busy);
      assertThat(empty).as("panels without data").doesNotContainAnyElementsOf(busy);
    }
  }
}
