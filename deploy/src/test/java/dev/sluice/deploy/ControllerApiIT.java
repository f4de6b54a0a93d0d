package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.config.ApplicationsConfigParser;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.BodyProbes;
import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.Sse;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.ddata.LWWRegister;
import org.apache.pekko.cluster.ddata.LWWRegisterKey;
import org.apache.pekko.cluster.ddata.typed.javadsl.DistributedData;
import org.apache.pekko.cluster.ddata.typed.javadsl.Replicator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The controller API on a live node: JSON and YAML round trips, the declarative PUT, PATCH and
 * DELETE, every bad input (400 naming the field, 404 naming the app or deployment) leaving the
 * state unchanged, the stored desired state, the cluster view, and 503 without a singleton.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControllerApiIT {

  private static final String ONE_APP = """
      {"applications": [{"name": "llm", "llm_configs": [{
        "model_loading_config": {"model_id": "sim"},
        "engine_config": {"type": "simulated", "ttft_ms": 0, "itl_ms": 1},
        "deployment_config": {"num_replicas": 1}}]}]}""";
  /** Sharing sections as users of YAML do: an anchor, an alias and a merge key. */
  private static final String TWO_APPS_YAML = """
      applications:
        - name: llm
          llm_configs:
            - model_loading_config: {model_id: sim}
              engine_config: &engine {type: simulated, ttft_ms: 0, itl_ms: 1}
              deployment_config: &one {num_replicas: 1, max_ongoing_requests: 4}
        - name: chat
          route_prefix: /chat
          llm_configs:
            - model_loading_config: {model_id: chat-model}
              engine_config: *engine
              deployment_config: {<<: *one, num_replicas: 2}
      """;

  private SluiceNode node;
  private int api;

  @BeforeAll
  void start() throws Exception {
    node = TestNodes.local(TestNodes.app(1, 0, 1, 8), ConfigFactory.empty());
    api = node.apiPort().orElseThrow();
  }

  @AfterAll
  void stop() {
    node.close();
  }

  private HttpResponse<String> call(String method, String path, String body, String type)
      throws Exception {
    return TestNodes.api(api, method, path, body, type);
  }

  /** What a write may change: apps, deployments, their targets and specs. */
  private String shape() throws Exception {
    List<String> parts = new ArrayList<>();
    for (JsonNode app : TestNodes.status(node).path("applications")) {
      for (JsonNode deployment : app.path("deployments")) {
        parts.add(app.path("name").asText() + "/" + deployment.path("name").asText() + ":"
            + deployment.path("target_replicas").asInt() + ":"
            + deployment.path("spec_version").asText());
      }
    }
    return String.join(",", parts);
  }

  private void awaitRunning(String app, String deployment, int count) {
    Await.untilOk(Duration.ofSeconds(20), app + "/" + deployment + " at " + count + " RUNNING",
        () -> {
          JsonNode status = TestNodes.deployment(node, app, deployment);
          return status.path("current_replicas").asInt() == count
              && status.path("replicas").size() == count
              && status.path("status").asText().equals("HEALTHY");
        });
  }

  @Test
  void putIsDeclarativeInJsonAndYamlAndTheStateIsStored() throws Exception {
    HttpResponse<String> yaml = call("PUT", "/api/applications", TWO_APPS_YAML,
        "application/yaml");
    assertThat(yaml.statusCode()).isEqualTo(200);
    assertThat(Sse.json(yaml.body()).path("applications")).hasSize(2);
    awaitRunning("chat", "chat-model", 2);
    assertThat(TestNodes.get(node.ingressPort().orElseThrow(), "/chat/v1/models").body())
        .contains("chat-model");

    HttpResponse<String> json = call("PUT", "/api/applications", ONE_APP, "application/json");
    assertThat(json.statusCode()).isEqualTo(200);
    JsonNode apps = Sse.json(json.body()).path("applications");
    assertThat(apps).hasSize(1);
    assertThat(apps.get(0).path("name").asText()).isEqualTo("llm");
    Await.until(Duration.ofSeconds(20), "chat's replicas drained and gone", () ->
        node.ingressView().all().stream()
            .filter(set -> set.deployment().app().equals("chat"))
            .allMatch(set -> set.replicas().isEmpty()));
    Await.untilOk(Duration.ofSeconds(5), "chat-model no longer listed", () ->
        !TestNodes.get(node.ingressPort().orElseThrow(), "/chat/v1/models").body()
            .contains("chat-model"));

    var replicator = DistributedData.get(node.system()).replicator();
    var key = LWWRegisterKey.<ApplicationsConfig>create("sluice-desired-applications");
    Replicator.GetResponse<LWWRegister<ApplicationsConfig>> stored =
        AskPattern.<Replicator.Command, Replicator.GetResponse<LWWRegister<ApplicationsConfig>>>ask(
            replicator, replyTo -> new Replicator.Get<>(key, Replicator.readLocal(), replyTo),
            Duration.ofSeconds(3), node.system().scheduler()).toCompletableFuture().get();
    assertThat(stored).isInstanceOf(Replicator.GetSuccess.class);
    assertThat(((Replicator.GetSuccess<LWWRegister<ApplicationsConfig>>) stored).get(key)
        .getValue().applications()).extracting(a -> a.name()).containsExactly("llm");
  }

  @Test
  void patchScalesADeploymentAndTheStoredConfigShowsIt() throws Exception {
    assertThat(call("PATCH", "/api/applications/llm/deployments/sim", "{\"num_replicas\": 2}",
        "application/json").statusCode()).isEqualTo(200);
    awaitRunning("llm", "sim", 2);
    HttpResponse<String> stored = call("GET", "/api/config", null, null);
    assertThat(stored.statusCode()).isEqualTo(200);
    JsonNode llm = Sse.json(stored.body()).path("applications").get(0);
    assertThat(llm.path("name").asText()).isEqualTo("llm");
    assertThat(llm.at("/llm_configs/0/deployment_config/num_replicas").asInt())
        .as("the PATCH is in the stored config").isEqualTo(2);
    assertThat(ApplicationsConfigParser.parse(stored.body()).applications()).hasSize(1);
    assertThat(call("GET", "/api/applications", null, null).body())
        .as("the status leaves configs (engine env) out").doesNotContain("deployed_app_config")
        .doesNotContain("llm_configs");
    assertThat(call("PATCH", "/api/applications/llm/deployments/sim", "num_replicas: 1",
        "application/yaml").statusCode()).isEqualTo(200);
    awaitRunning("llm", "sim", 1);
    assertThat(call("DELETE", "/api/config", null, null).headers().firstValue("allow"))
        .hasValue("GET, HEAD");
  }

  @Test
  void badInputIsRefusedNamingTheFieldAndChangesNothing() throws Exception {
    awaitRunning("llm", "sim", 1);
    String before = shape();

    assertInvalid(call("PUT", "/api/applications", ONE_APP.replace("\"num_replicas\": 1",
            "\"num_replicas\": -1"), "application/json"),
        "applications[0].llm_configs[0].deployment_config.num_replicas",
        "applications[0].llm_configs[0].deployment_config.num_replicas: -1 (expected: >= 0)");
    assertInvalid(call("PUT", "/api/applications", ONE_APP.replace("\"ttft_ms\"", "\"ttft\""),
            "application/json"),
        "applications[0].llm_configs[0].engine_config.ttft", "unknown field");
    assertInvalid(call("PUT", "/api/applications", "applications: [ {", "application/yaml"),
        null, "not valid YAML/JSON");
    assertInvalid(call("PUT", "/api/applications", ONE_APP.replace("\"num_replicas\": 1",
            "\"num_replicas\": 1, \"request_router_config\": {\"request_router_class\": "
                + "\"nope\"}"), "application/json"),
        "applications[0].llm_configs[0].deployment_config.request_router_config."
            + "request_router_class", "'nope' (expected: one of capacity-queue");
    assertInvalid(call("PUT", "/api/applications", ONE_APP.replace("\"num_replicas\": 1",
            "\"num_replicas\": 5000"), "application/json"),
        "applications[0].llm_configs[0].deployment_config.num_replicas",
        "num_replicas: 5000 (expected: <= 1000, the most replicas of one deployment");
    assertInvalid(call("PATCH", "/api/applications/llm/deployments/sim",
        "{\"num_replicas\": 5000}", "application/json"), "num_replicas",
        "num_replicas: 5000 (expected: <= 1000");
    assertInvalid(call("PATCH", "/api/applications/llm/deployments/sim",
        "{\"autoscaling_config\": {\"max_replicas\": 1001}}", "application/json"),
        "autoscaling_config.max_replicas", "autoscaling_config.max_replicas: 1001 (expected: "
            + "<= 1000");
    String big = "applications: [" + "x".repeat(2 << 20) + "]";
    assertError(call("PUT", "/api/applications", big, "application/yaml"), 413,
        "larger than 1 MiB");
    assertError(TestNodes.HTTP.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
            "http://127.0.0.1:" + api + "/api/applications"))
        .PUT(java.net.http.HttpRequest.BodyPublishers.fromPublisher(  // chunked: no length
            java.net.http.HttpRequest.BodyPublishers.ofString(big)))
        .header("content-type", "application/yaml").build(),
        HttpResponse.BodyHandlers.ofString()), 413, "larger than 1 MiB");
    // Past Pekko's own limit (8 MiB), and a client that waits for 100 Continue.
    assertThat(BodyProbes.farTooLarge(api, "PUT", "/api/applications", 9 << 20, 9 << 20))
        .allSatisfy(far -> {
          assertThat(far).isNotNull();
          assertThat(far.status()).isEqualTo(413);
          assertThat(far.body()).contains("larger than 1 MiB");
        });
    StringBuilder bomb = new StringBuilder("applications:\n- &l0 [lol, lol, lol, lol, lol]\n");
    for (int level = 1; level <= 9; level++) {
      bomb.append("- &l").append(level).append(" [").append(String.join(", ",
          java.util.Collections.nCopies(9, "*l" + (level - 1)))).append("]\n");
    }
    assertInvalid(call("PUT", "/api/applications", bomb.toString(), "application/yaml"),
        "applications[5][1]", "YAML aliases copy more than 100000 values in all");
    assertInvalid(call("PATCH", "/api/applications/llm/deployments/sim",
        "{\"num_replicas\": -3}", "application/json"), "num_replicas",
        "num_replicas: -3 (expected: >= 0)");
    assertInvalid(call("PATCH", "/api/applications/llm/deployments/sim",
        "{\"num_replicas\": 2, \"autoscaling_config\": {\"max_replicas\": 2}}",
        "application/json"), null, "both set");
    assertInvalid(call("PATCH", "/api/applications/llm/deployments/sim",
        "{\"autoscaling_config\": {\"min_replicas\": 3, \"max_replicas\": 2}}",
        "application/json"), "autoscaling_config.max_replicas",
        "autoscaling_config.max_replicas: 2 (expected: >= min_replicas 3)");

    assertError(call("PATCH", "/api/applications/nope/deployments/sim", "{\"num_replicas\": 2}",
        "application/json"), 404, "'nope'");
    assertError(call("PATCH", "/api/applications/llm/deployments/nope", "{\"num_replicas\": 2}",
        "application/json"), 404, "'nope'");
    assertError(call("DELETE", "/api/applications/nope", null, null), 404, "'nope'");
    HttpResponse<String> post = call("POST", "/api/applications", "{}", "application/json");
    assertError(post, 405, "POST");
    assertThat(post.headers().firstValue("allow")).hasValue("GET, HEAD, PUT");
    assertThat(call("GET", "/api/applications/llm/deployments/sim", null, null).headers()
        .firstValue("allow")).hasValue("PATCH");
    assertThat(call("PUT", "/api/applications/llm", "{}", "application/json").headers()
        .firstValue("allow")).hasValue("DELETE");
    assertError(call("PATCH", "/api/applications/llm/replicas/x", "{}", "application/json"),
        404, "/api/applications/llm/replicas/x");
    assertError(call("GET", "/api/nothing", null, null), 404, "/api/nothing");

    assertThat(shape()).as("the running state is unchanged").isEqualTo(before);
  }

  private static void assertInvalid(HttpResponse<String> response, String param,
      String message) {
    assertError(response, 400, message);
    JsonNode error = Sse.json(response.body()).path("error");
    if (param != null) {
      assertThat(error.path("param").asText()).isEqualTo(param);
    }
  }

  private static void assertError(HttpResponse<String> response, int status, String message) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    JsonNode error = Sse.json(response.body()).path("error");
    assertThat(error.path("message").asText()).contains(message);
    assertThat(error.path("type").asText()).isNotBlank();
  }

  @Test
  void headIsAnsweredAsGetWithoutTheBody() throws Exception {
    for (String path : List.of("/", "/api/applications", "/api/cluster")) {
      HttpResponse<String> get = call("GET", path, null, null);
      HttpResponse<String> head = call("HEAD", path, null, null);
      assertThat(head.statusCode()).as(path).isEqualTo(200);
      assertThat(head.body()).as(path).isEmpty();
      assertThat(head.headers().firstValue("content-type"))
          .isEqualTo(get.headers().firstValue("content-type"));
    }
  }

  @Test
  void theClusterViewNamesMembersLeaderAndSingletons() throws Exception {
    JsonNode cluster = Sse.json(call("GET", "/api/cluster", null, null).body());
    String self = node.system().address().toString();
    assertThat(cluster.path("self").asText()).isEqualTo(self);
    assertThat(cluster.path("leader").asText()).isEqualTo(self);
    assertThat(cluster.path("transport").asText()).isEqualTo("tcp");
    assertThat(cluster.path("api_guard").asText()).isEqualTo("none");
    assertThat(cluster.path("members")).hasSize(1);
    JsonNode member = cluster.path("members").get(0);
    assertThat(member.path("status").asText()).isEqualTo("Up");
    assertThat(member.path("reachable").asBoolean()).isTrue();
    assertThat(member.path("roles").toString()).contains("control", "ingress", "replica");
    assertThat(cluster.path("singletons").path("controller").asText()).isEqualTo(self);
    assertThat(cluster.path("singletons").path("llm-router").asText()).isEqualTo(self);
  }

  @Test
  void withoutAReachableSingletonTheApiAnswers503WithAReason() throws Exception {
    NodeOptions alone = new NodeOptions(java.util.Set.of(Role.CONTROL), Optional.empty(),
        Optional.empty(), List.of("127.0.0.1:9"), Optional.empty(), TestNodes.overrides());
    try (SluiceNode lonely = SluiceNode.start(alone)) {
      long start = System.nanoTime();
      HttpResponse<String> read = TestNodes.api(lonely.apiPort().orElseThrow(), "GET",
          "/api/applications", null, null);
      HttpResponse<String> write = TestNodes.api(lonely.apiPort().orElseThrow(), "PATCH",
          "/api/applications/llm/deployments/sim", "{\"num_replicas\": 2}",
          "application/json");
      Duration both = Duration.ofNanos(System.nanoTime() - start);

      // Membership says no controller can answer: both fail at once, naming why.
      assertError(read, 503, "cannot answer now: cluster membership not known yet");
      assertError(write, 503, "nothing was changed");
      assertThat(both).as("two answers without waiting for the ask timeout")
          .isLessThan(Duration.ofMillis(1000));
    }
  }
}
