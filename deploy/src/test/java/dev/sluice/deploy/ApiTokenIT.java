package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.Sse;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The controller API's own token ({@code sluice.controller.api.token}) on a real node: with it
 * set, the cluster token, which every ingress sends to replicas, no longer opens the API, and
 * the API's token opens nothing but the API.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApiTokenIT {

  private static final String CLUSTER = "Bearer cluster-secret-2";
  private static final String API = "Bearer api-secret-2";

  private SluiceNode node;
  private int api;

  @BeforeAll
  void start() throws Exception {
    node = TestNodes.local(TestNodes.app(1, 0, 1, 8), ConfigFactory.parseString("""
        sluice.core.cluster-token = "cluster-secret-2"
        sluice.controller.api.token = "api-secret-2"
        """));
    api = node.apiPort().orElseThrow();
  }

  @AfterAll
  void stop() {
    node.close();
  }

  private HttpResponse<String> call(String method, String path, String body,
      String authorization) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(
            "http://127.0.0.1:" + api + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body))
        .header("content-type", "application/json")
        .timeout(Duration.ofSeconds(30));
    if (authorization != null) {
      request.header("authorization", authorization);
    }
    return TestNodes.HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void assertRefused(HttpResponse<String> response) {
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.headers().firstValue("www-authenticate")).hasValue("Bearer");
    assertThat(Sse.json(response.body()).at("/error/message").asText())
        .isEqualTo("The controller API needs its token: send Authorization: Bearer "
            + "<sluice.controller.api.token>");
    assertThat(response.body()).doesNotContain("secret-2");
  }

  private int targetReplicas() throws Exception {
    HttpResponse<String> status = call("GET", "/api/applications", null, API);
    assertThat(status.statusCode()).isEqualTo(200);
    return Sse.json(status.body()).at("/applications/0/deployments/0/target_replicas").asInt();
  }

  @Test
  void theClusterTokenNoLongerOpensTheApiButItsOwnTokenDoes() throws Exception {
    String scale = "{\"num_replicas\": 2}";
    String deployment = "/api/applications/llm/deployments/sim";
    assertRefused(call("GET", "/api/applications", null, null));
    assertRefused(call("GET", "/api/applications", null, CLUSTER));
    assertRefused(call("PATCH", deployment, scale, CLUSTER));
    assertRefused(call("GET", "/api/events", null, CLUSTER));
    assertThat(targetReplicas()).as("a refused write changes nothing").isEqualTo(1);

    HttpResponse<String> read = call("GET", "/api/cluster", null, API);
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(Sse.json(read.body()).path("api_guard").asText()).isEqualTo("api-token");
    HttpResponse<String> write = call("PATCH", deployment, scale, API);
    assertThat(write.statusCode()).as(write.body()).isEqualTo(200);
    assertThat(targetReplicas()).isEqualTo(2);
    // The dashboard's page holds no data and loads without a token; it asks for one.
    assertThat(call("GET", "/", null, null).statusCode()).isEqualTo(200);
  }

  @Test
  void theApiTokenOpensNeitherReplicasNorTheRouter() throws Exception {
    int replica = node.ingressView().all().iterator().next().replicas().get(0).port();
    String chat = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":2}";
    assertThat(TestNodes.post(replica, "/v1/chat/completions", chat, "authorization", API)
        .statusCode()).isEqualTo(401);
    assertThat(TestNodes.post(replica, "/v1/chat/completions", chat, "authorization", CLUSTER)
        .statusCode()).isEqualTo(200);
    int router = node.routerPort().orElseThrow();
    assertThat(TestNodes.post(router, "/internal/route", "", "authorization", API)
        .statusCode()).isEqualTo(401);
  }

  @Test
  void anApiTokenThatIsTheClusterTokenStopsTheNodeBeforeItJoins() {
    assertThatThrownBy(() -> SluiceNode.start(NodeOptions.local(Optional.empty(),
        ConfigFactory.parseString("""
            sluice.core.cluster-token = "same-secret"
            sluice.controller.api.token = "same-secret"
            """).withFallback(TestNodes.overrides()))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sluice.controller.api.token: the same as sluice.core.cluster-token, which "
            + "every ingress sends with the requests it forwards (expected: a token of its own)");
  }

  @Test
  void theCliSendsTheApiTokenBeforeTheClusterToken() {
    assertThat(ApiClient.token(java.util.Map.of("SLUICE_CLUSTER_TOKEN", "c",
        "SLUICE_CONTROLLER_API_TOKEN", "a"))).hasValue("a");
    assertThat(ApiClient.token(java.util.Map.of("SLUICE_CLUSTER_TOKEN", "c",
        "SLUICE_CONTROLLER_API_TOKEN", " "))).hasValue("c");
    assertThat(ApiClient.token(java.util.Map.of("SLUICE_CONTROLLER_API_TOKEN", "new, old")))
        .hasValue("new");
    assertThat(ApiClient.token(java.util.Map.of())).isEmpty();
  }
}
