package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.testing.Sse;
import dev.sluice.replica.engine.SimulatedEngine;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * API keys on the public ingress (both data paths) and the cluster token on the internal
 * endpoints (the router's /internal/route, every replica route but health, the controller API
 * when it has no token of its own), on a real node.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EdgeSecurityIT {

  private static final String CHAT =
      "{\"messages\":[{\"role\":\"user\",\"content\":\"keyed\"}],\"max_tokens\":3}";
  private static final String TOKEN = "Bearer cluster-secret-1";

  private SluiceNode node;
  private int ingress;

  @BeforeAll
  void start() throws Exception {
    node = TestNodes.local(TestNodes.app(1, 0, 1, 8), ConfigFactory.parseString("""
        sluice.ingress.api-keys = "key-one, key-two"
        sluice.ingress.relayed-port = 0
        sluice.core.cluster-token = "cluster-secret-1"
        """));
    ingress = node.ingressPort().orElseThrow();
  }

  @AfterAll
  void stop() {
    node.close();
  }

  private ReplicaInfo replica() {
    return node.ingressView().all().iterator().next().replicas().get(0);
  }

  private static void assertRefused(HttpResponse<String> response, String message) {
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.headers().firstValue("www-authenticate")).hasValue("Bearer");
    assertThat(Sse.json(response.body()).at("/error/message").asText()).contains(message);
  }

  @Test
  void completionsAndModelsNeedAKnownApiKeyButHealthDoesNot() throws Exception {
    HttpResponse<String> none = TestNodes.post(ingress, "/v1/chat/completions", CHAT);
    assertRefused(none, "Missing API key");
    assertThat(Sse.json(none.body()).at("/error/code").asText()).isEqualTo("invalid_api_key");
    assertThat(none.headers().firstValue("x-request-id")).isPresent();
    assertRefused(TestNodes.post(ingress, "/v1/chat/completions", CHAT,
        "authorization", "Bearer key-three"), "Incorrect API key");
    assertRefused(TestNodes.post(ingress, "/v1/chat/completions", CHAT,
        "authorization", "Basic a2V5LW9uZQ=="), "Incorrect API key");

    HttpResponse<String> keyed = TestNodes.post(ingress, "/v1/chat/completions", CHAT,
        "authorization", "Bearer key-two");
    assertThat(keyed.statusCode()).isEqualTo(200);
    assertThat(Sse.json(keyed.body()).at("/choices/0/message/content").asText())
        .isEqualTo(SimulatedEngine.text("keyed", 3));

    assertThat(TestNodes.get(ingress, "/v1/models").statusCode()).isEqualTo(401);
    assertThat(TestNodes.get(ingress, "/-/healthz").statusCode()).isEqualTo(200);
  }

  @Test
  void theRelayedPathChecksTheSameKeys() throws Exception {
    int relayed = node.relayedIngressPort().orElseThrow();
    assertRefused(TestNodes.post(relayed, "/v1/chat/completions", CHAT), "Missing API key");
    HttpResponse<String> keyed = TestNodes.post(relayed, "/v1/chat/completions", CHAT,
        "authorization", "Bearer key-one");
    assertThat(keyed.statusCode()).as("the router's reservation carried the cluster token")
        .isEqualTo(200);
    assertThat(Sse.json(keyed.body()).at("/choices/0/message/content").asText())
        .isEqualTo(SimulatedEngine.text("keyed", 3));
  }

  @Test
  void replicaEndpointsNeedTheClusterTokenButHealthDoesNot() throws Exception {
    int port = replica().port();
    HttpResponse<String> direct = TestNodes.post(port, "/v1/chat/completions", CHAT);
    assertRefused(direct, "cluster token");
    assertRefused(TestNodes.post(port, "/v1/chat/completions", CHAT,
        "authorization", "Bearer key-one"), "cluster token");
    assertThat(TestNodes.get(port, "/-/stats").statusCode()).isEqualTo(401);
    assertThat(TestNodes.get(port, "/-/healthz").statusCode()).isEqualTo(200);
    assertThat(TestNodes.post(port, "/v1/chat/completions", CHAT, "authorization", TOKEN)
        .statusCode()).isEqualTo(200);
  }

  @Test
  void theControllerApiWithoutATokenOfItsOwnNeedsTheClusterToken() throws Exception {
    int api = node.apiPort().orElseThrow();
    HttpResponse<String> refused = TestNodes.api(api, "GET", "/api/applications", null, null);
    assertRefused(refused, "cluster token");
    assertThat(refused.body()).doesNotContain("cluster-secret-1");
    assertRefused(TestNodes.post(api, "/api/applications", "{}", "authorization",
        "Bearer key-one"), "cluster token");
    HttpResponse<String> status = TestNodes.HTTP.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://127.0.0.1:" + api + "/api/applications"))
        .header("authorization", TOKEN).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(status.statusCode()).isEqualTo(200);
    assertThat(Sse.json(status.body()).at("/applications/0/name").asText()).isEqualTo("llm");
    HttpResponse<String> cluster = TestNodes.HTTP.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://127.0.0.1:" + api + "/api/cluster"))
        .header("authorization", TOKEN).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(Sse.json(cluster.body()).path("api_guard").asText()).isEqualTo("cluster-token");
  }

  @Test
  void internalRouteNeedsTheClusterToken() throws Exception {
    int router = node.routerPort().orElseThrow();
    HttpResponse<String> refused = TestNodes.post(router, "/internal/route", "");
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(refused.body()).contains("cluster token").doesNotContain("cluster-secret-1");
    assertThat(TestNodes.post(router, "/internal/route", "", "authorization", TOKEN)
        .statusCode()).isEqualTo(200);
    assertThat(TestNodes.get(router, "/health").statusCode()).isEqualTo(200);
  }
}
