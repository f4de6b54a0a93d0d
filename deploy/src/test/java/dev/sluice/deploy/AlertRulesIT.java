package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.Await;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alerting rules in {@code deploy/prometheus-alerts.yml}: Debian's {@code promtool} checks
 * them and runs their unit tests, and a real Prometheus loads them while scraping a real node:
 * every rule evaluates, none is pending or firing while the node serves, and a deployment that
 * cannot run a replica makes the two replica-count alerts pending.
 */
class AlertRulesIT {

  private static final Path RULES = Path.of("prometheus-alerts.yml").toAbsolutePath();
  private static final int PROMETHEUS_PORT = 19091;
  private static final String KEY = "Bearer alert-key-1";

  private static String run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(String.join(" ", command) + ":\n" + output).isZero();
    return output;
  }

  @Test
  void promtoolChecksTheConfigAndTheRulesPassTheirUnitTests() throws Exception {
    assertThat(run("promtool", "check", "config", "prometheus.yml"))
        .contains("SUCCESS: 1 rule files found", "SUCCESS: 14 rules found");
    assertThat(run("promtool", "test", "rules", "prometheus-alerts.test.yml"))
        .contains("SUCCESS");
  }

  /**
   * The Kubernetes scrape job that prometheus.yml gives commented out is a valid config once
   * uncommented. Debian's promtool is built without Kubernetes service discovery, so its
   * {@code kubernetes_sd_configs} is swapped for a static target; the rest (paths, relabelling)
   * is checked as written.
   */
  @Test
  void theKubernetesScrapeJobIsAValidConfig(@TempDir Path folder) throws Exception {
    List<String> lines = Files.readAllLines(Path.of("prometheus.yml"), StandardCharsets.UTF_8);
    int variant = lines.indexOf("  # Kubernetes variant (see deploy/kubernetes/): find the Sluice "
        + "pods through the API server");
    assertThat(variant).as("the Kubernetes variant's comment").isPositive();
    int start = lines.subList(variant, lines.size()).indexOf("  # - job_name: sluice") + variant;
    List<String> job = new ArrayList<>();
    boolean discovery = false;
    for (String line : lines.subList(start, lines.size())) {
      if (!line.startsWith("  # ")) {
        break;
      }
      String uncommented = "  " + line.substring(4);
      if (uncommented.equals("    kubernetes_sd_configs:")) {
        discovery = true;
        job.add("    static_configs: [{targets: [\"127.0.0.1:9464\"]}]");
      } else if (discovery && uncommented.startsWith("      ")) {
        continue;  // the discovery block's own lines
      } else {
        discovery = false;
        job.add(uncommented);
      }
    }
    Path config = folder.resolve("kubernetes.yml");
    Files.writeString(config, "scrape_configs:\n" + String.join("\n", job) + "\n");
    assertThat(job).anyMatch(line -> line.contains("regex: sluice;metrics"));
    assertThat(run("promtool", "check", "config", config.toString())).contains("SUCCESS");
  }

  /** Every metric a rule names is one docs/METRICS.md documents (a typo never fires). */
  @Test
  void everyMetricTheRulesNameIsDocumented() throws IOException {
    String docs = Files.readString(Path.of("..", "docs", "METRICS.md"));
    Matcher names = Pattern.compile("\\bsluice_[a-z_]+\\b").matcher(Files.readString(RULES));
    TreeSet<String> used = new TreeSet<>();
    while (names.find()) {
      used.add(names.group());
    }
    assertThat(used).hasSizeGreaterThan(10);
    assertThat(used).allSatisfy(name -> assertThat(docs).contains("`" + name + "`"));
  }

  /** Each alerting rule, by name: its health ({@code ok} once evaluated) and state. */
  private static Map<String, String> rules(TestPrometheus prometheus) throws Exception {
    Map<String, String> rules = new TreeMap<>();
    for (JsonNode group : prometheus.api("/api/v1/rules").path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        rules.put(rule.path("name").asText(), rule.path("health").asText() + " "
            + rule.path("state").asText());
      }
    }
    return rules;
  }

  /** The pending or firing alerts, as {@code name deployment state}. */
  private static List<String> alerts(TestPrometheus prometheus) throws Exception {
    List<String> alerts = new ArrayList<>();
    for (JsonNode alert : prometheus.api("/api/v1/alerts").path("alerts")) {
      alerts.add(alert.path("labels").path("alertname").asText() + " "
          + alert.path("labels").path("deployment").asText() + " "
          + alert.path("state").asText());
    }
    return alerts;
  }

  @Test
  void aServingNodeRaisesNoneAndADeploymentWithoutReplicasRaisesItsTwo() throws Exception {
    try (SluiceNode node = TestNodes.local(TestNodes.app(2, 0, 1, 32), ConfigFactory.parseString(
            "sluice.ingress.api-keys = \"alert-key-1\""));
        TestPrometheus prometheus = TestPrometheus.start(PROMETHEUS_PORT,
            node.metricsPort().orElseThrow(), RULES)) {
      int ingress = node.ingressPort().orElseThrow();
      Await.untilOk(Duration.ofSeconds(30), "answers scraped and every rule evaluated", () ->
          TestNodes.post(ingress, "/v1/completions", "{\"prompt\":\"alert\",\"max_tokens\":2}",
              "authorization", KEY).statusCode() == 200
          && prometheus.query("sluice_ingress_requests_total").size() > 0
          && rules(prometheus).size() == 14
          && rules(prometheus).values().stream().allMatch(rule -> rule.startsWith("ok ")));
      java.time.Instant scraped = java.time.Instant.now();
      Await.untilOk(Duration.ofSeconds(10), "every rule evaluated again after that scrape",
          () -> prometheus.api("/api/v1/rules").findValues("lastEvaluation").stream()
              .allMatch(at -> java.time.Instant.parse(at.asText()).isAfter(scraped)));
      assertThat(rules(prometheus).values()).as("a serving node raises no alert")
          .containsOnly("ok inactive");
      assertThat(alerts(prometheus)).isEmpty();

      // A deployment whose replicas need a GPU on a node that offers none never runs one.
      String both = TestNodes.app(2, 0, 1, 32) + """
            - name: gpu
              route_prefix: /gpu
              llm_configs:
                - model_loading_config: {model_id: big}
                  engine_config:
                    type: openai-process
                    command: [sluice-test-never-started, --port, "{port}"]
                    num_gpus: 1
          """;
      HttpResponse<String> put = TestNodes.api(node.apiPort().orElseThrow(), "PUT",
          "/api/applications", both, "application/yaml");
      assertThat(put.statusCode()).as(put.body()).isIn(200, 202);
      Await.untilOk(Duration.ofSeconds(30), "the two replica-count alerts pending",
          () -> alerts(prometheus).containsAll(List.of(
              "SluiceDeploymentHasNoRunningReplica gpu#big pending",
              "SluiceDeploymentBelowTarget gpu#big pending")));
      assertThat(alerts(prometheus)).as("nothing else").hasSize(2);
    }
  }
}
