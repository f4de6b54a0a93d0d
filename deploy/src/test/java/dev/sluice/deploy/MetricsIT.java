package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.Await;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /metrics} of a real node (all roles, both data paths) scraped before and after known
 * traffic: the counters move by exactly that traffic, a refusal counts under its reason only,
 * no label carries a request id, and the exposition passes {@code promtool check metrics}.
 */
class MetricsIT {

  private static final String LLM = """
      applications:
        - name: llm
          llm_configs:
            - model_loading_config: {model_id: sim}
              engine_config: {type: simulated, ttft_ms: 0, itl_ms: 2, default_max_tokens: 16}
              deployment_config: {num_replicas: 2, max_ongoing_requests: 32}
      """;
  /** The same plus an application without replicas (its requests get 503 no_replicas). */
  private static final String WITH_EMPTY = LLM + """
        - name: empty
          route_prefix: /empty
          llm_configs:
            - model_loading_config: {model_id: nothing}
              engine_config: {type: simulated}
              deployment_config: {num_replicas: 0}
      """;
  private static final Pattern UUID_LIKE =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  private static final String CHAT = "/v1/chat/completions";

  private static SluiceNode node;

  @BeforeAll
  static void start() throws Exception {
    // Several deployments: requests name their model, which the router reads from the body.
    node = TestNodes.local(LLM, ConfigFactory.parseString(
        "sluice.ingress.relayed-port = 0\nsluice.ingress.forward-body = on"));
    HttpResponse<String> put = TestNodes.api(node.apiPort().orElseThrow(), "PUT",
        "/api/applications", WITH_EMPTY, "application/yaml");
    assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
    Await.until(Duration.ofSeconds(10), "the empty application known to the ingress", () ->
        node.ingressView().get(new dev.sluice.core.DeploymentId("empty", "nothing")).isPresent());
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static String scrapeText() throws Exception {
    HttpResponse<String> response = TestNodes.get(node.metricsPort().orElseThrow(), "/metrics");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type").orElse(""))
        .startsWith("text/plain; version=0.0.4");
    return response.body();
  }

  private static Exposition scrape() throws Exception {
    return Exposition.parse(scrapeText());
  }

  private static String stream(int port, String path, String requestId) throws Exception {
    HttpResponse<String> response = TestNodes.post(port, path,
        "{\"model\":\"sim\",\"messages\":[{\"role\":\"user\",\"content\":\"count me\"}],"
            + "\"stream\":true}",
        "x-request-id", requestId);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return response.body();
  }

  /** Every series of {@code name} and how much it grew from {@code before} to {@code after}. */
  private static Map<Map<String, String>, Double> growth(Exposition before, Exposition after,
      String name) {
    return after.samples().stream().filter(s -> s.name().equals(name))
        .collect(Collectors.toMap(Exposition.Sample::labels, s -> s.value() - before.samples()
            .stream().filter(b -> b.name().equals(name) && b.labels().equals(s.labels()))
            .mapToDouble(Exposition.Sample::value).findFirst().orElse(0)));
  }

  @Test
  void countersMoveByExactlyTheTrafficSentAndNoLabelIsARequestId() throws Exception {
    Exposition before = scrape();
    int ingress = node.ingressPort().orElseThrow();
    int relayed = node.relayedIngressPort().orElseThrow();
    for (int i = 0; i < 12; i++) {
      stream(ingress, CHAT, "it-req-" + UUID.randomUUID());
    }
    for (int i = 0; i < 3; i++) {
      stream(relayed, CHAT, "it-req-" + UUID.randomUUID());
    }
    HttpResponse<String> refused = TestNodes.post(ingress, "/empty" + CHAT,
        "{\"model\":\"nothing\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
        "x-request-id", "it-req-503");
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.headers().firstValue("x-serve-reason")).hasValue("no_replicas");

    // A request is counted when its last byte has left the ingress (a moment after the client
    // may have read it): wait for the last one.
    Await.untilOk(Duration.ofSeconds(10), "every request counted", () -> scrape().sum(
        "sluice_ingress_requests_total") - before.sum("sluice_ingress_requests_total") == 16);
    // A replica adds its engine's tokens to its counter on its load tick (every 50 ms).
    Await.untilOk(Duration.ofSeconds(10), "every generated token counted", () -> scrape().sum(
        "sluice_replica_generated_tokens_total")
        - before.sum("sluice_replica_generated_tokens_total") >= 15 * 16);
    Exposition after = scrape();

    Map<Map<String, String>, Double> requests = growth(before, after,
        "sluice_ingress_requests_total");
    Map<Map<String, String>, Double> moved = requests.entrySet().stream()
        .filter(e -> e.getValue() != 0)
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    assertThat(moved).containsOnly(
        Map.entry(Map.of("route", CHAT, "data_path", "direct", "status", "200",
            "reason", "none"), 12.0),
        Map.entry(Map.of("route", CHAT, "data_path", "relayed", "status", "200",
            "reason", "none"), 3.0),
        Map.entry(Map.of("route", CHAT, "data_path", "direct", "status", "503",
            "reason", "no_replicas"), 1.0));
    assertThat(after.sum("sluice_ingress_delivered_tokens_total", "data_path", "direct")
        - before.sum("sluice_ingress_delivered_tokens_total", "data_path", "direct"))
        .isEqualTo(12 * 16);
    assertThat(after.sum("sluice_ingress_delivered_tokens_total", "data_path", "relayed")
        - before.sum("sluice_ingress_delivered_tokens_total", "data_path", "relayed"))
        .isEqualTo(3 * 16);
    assertThat(after.sum("sluice_ingress_ttft_seconds_count", "data_path", "direct")
        - before.sum("sluice_ingress_ttft_seconds_count", "data_path", "direct")).isEqualTo(12);
    // The relayed path's front (the splice) counts its requests; the server behind it does not.
    assertThat(after.sum("sluice_ingress_ttft_seconds_count", "data_path", "relayed")
        - before.sum("sluice_ingress_ttft_seconds_count", "data_path", "relayed")).isEqualTo(3);
    assertThat(after.sum("sluice_ingress_route_seconds_count", "data_path", "relayed")
        - before.sum("sluice_ingress_route_seconds_count", "data_path", "relayed")).isEqualTo(3);
    assertThat(after.sum("sluice_replica_generated_tokens_total")
        - before.sum("sluice_replica_generated_tokens_total")).isEqualTo(15 * 16);
    assertThat(after.sum("sluice_replica_ttft_seconds_count")
        - before.sum("sluice_replica_ttft_seconds_count")).isEqualTo(15);
    assertThat(after.sum("sluice_router_decisions_total", "deployment", "llm#sim",
        "outcome", "routed") - before.sum("sluice_router_decisions_total",
        "deployment", "llm#sim", "outcome", "routed")).isGreaterThanOrEqualTo(15);
    assertThat(after.sum("sluice_actor_messages_total", "actor", "llm-router")
        - before.sum("sluice_actor_messages_total", "actor", "llm-router"))
        .isGreaterThanOrEqualTo(16);
    assertThat(after.sum("sluice_ingress_streams_open")).isZero();

    List<String> values = after.samples().stream()
        .flatMap(s -> s.labels().values().stream()).distinct().toList();
    assertThat(values).noneMatch(v -> v.contains("it-req-"))
        .noneMatch(v -> UUID_LIKE.matcher(v).find());
  }

  @Test
  void everyComponentAndTheJvmAreThere() throws Exception {
    // Membership gauges are set every second by each node of this JVM (another test's node
    // leaving sets them too): wait for this node's next update.
    Await.untilOk(Duration.ofSeconds(5), "one member Up", () ->
        scrape().sum("sluice_cluster_members", "status", "Up") == 1);
    Exposition metrics = scrape();
    for (String actor : List.of("controller", "llm-router", "capacity-queue", "node-agent",
        "load-reporter", "replica")) {
      assertThat(metrics.has("sluice_actor_mailbox_depth", "actor", actor)).as(actor).isTrue();
    }
    assertThat(metrics.sum("sluice_cluster_unreachable_members")).isZero();
    assertThat(metrics.sum("sluice_controller_replicas", "deployment", "llm#sim",
        "state", "RUNNING")).isEqualTo(2);
    assertThat(metrics.sum("sluice_controller_target_replicas", "deployment", "empty#nothing"))
        .isZero();
    assertThat(metrics.sum("sluice_router_replicas", "deployment", "llm#sim")).isEqualTo(2);
    assertThat(metrics.sum("sluice_replica_slots", "deployment", "llm#sim")).isEqualTo(64);
    assertThat(metrics.samples().stream().filter(s -> s.name().equals("sluice_replica_slots")))
        .hasSize(2);
    assertThat(metrics.has("sluice_capacity_in_flight")).isTrue();
    assertThat(metrics.has("sluice_engine_kv_cache_usage_ratio")).isTrue();
    assertThat(metrics.has("sluice_controller_reconcile_seconds_count")).isTrue();
    assertThat(metrics.has("jvm_memory_used_bytes", "area", "heap")).isTrue();
    assertThat(metrics.has("jvm_threads_current")).isTrue();
  }

  @Test
  void headIsAnsweredAsGetWithoutTheBody() throws Exception {
    HttpResponse<String> head = TestNodes.api(node.metricsPort().orElseThrow(), "HEAD",
        "/metrics", null, null);
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(head.headers().firstValue("content-type").orElse(""))
        .startsWith("text/plain; version=0.0.4");
  }

  @Test
  void theExpositionPassesPromtool() throws Exception {
    stream(node.ingressPort().orElseThrow(), CHAT, "it-req-promtool");
    Process promtool = new ProcessBuilder("promtool", "check", "metrics")
        .redirectErrorStream(true).start();
    try (var in = promtool.getOutputStream()) {
      in.write(scrapeText().getBytes(StandardCharsets.UTF_8));
    }
    assertThat(promtool.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(promtool.exitValue()).as(output).isZero();
  }

  @Test
  void metricsCanBeTurnedOff() throws Exception {
    try (SluiceNode off = SluiceNode.start(NodeOptions.local(java.util.Optional.empty(),
        ConfigFactory.parseString("sluice.metrics.port = -1")
            .withFallback(TestNodes.overrides())))) {
      assertThat(off.metricsPort()).isEmpty();
    }
  }
}
