package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.sluice.router.LLMRouter;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Routing failures end in 503 + X-Serve-Reason, never in a 200 from an unrouted path; run once
 * per data path (see the subclasses).
 */
abstract class FailClosedSuite {

  /** Configuration that selects the data path. */
  abstract Config pathConfig();

  private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";

  static void assertFailClosed(HttpResponse<String> response, String reason) {
    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.headers().firstValue("x-serve-reason")).hasValue(reason);
    assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(
        type -> assertThat(type).startsWith("text/plain"));
    assertThat(response.body()).isEqualTo("Ingress request router failed: " + reason);
  }

  @Test
  void zeroReplicasFailsClosedWithNoReplicas() throws Exception {
    try (SluiceNode node = TestNodes.local(TestNodes.app(0, 0, 0, 4), pathConfig())) {
      HttpResponse<String> response = TestNodes.post(node.ingressPort().orElseThrow(),
          "/v1/chat/completions", CHAT);

      assertFailClosed(response, "no_replicas");
      assertThat(response.headers().firstValue("x-sluice-detail")).hasValueSatisfying(
          detail -> assertThat(detail).contains("llm#sim"));
    }
  }

  @Test
  void routerNotUpFailsClosedWithRouterUnreachable() throws Exception {
    // An ingress-only cluster: no control node, so the router singleton never starts.
    NodeOptions options = new NodeOptions(Set.of(Role.INGRESS), Optional.empty(),
        Optional.empty(), List.of(), Optional.empty(),
        ConfigFactory.parseString("sluice.ingress.route-timeout = 300ms")
            .withFallback(pathConfig()).withFallback(TestNodes.overrides()));
    try (SluiceNode node = SluiceNode.start(options)) {
      assertFailClosed(TestNodes.post(node.ingressPort().orElseThrow(), "/v1/chat/completions",
          CHAT), "router_unreachable");
    }
  }

  @Test
  void routerStoppedFailsClosedWithRouterUnreachable() throws Exception {
    try (SluiceNode node = TestNodes.local(TestNodes.app(1, 0, 0, 4),
        ConfigFactory.parseString("sluice.ingress.route-timeout = 300ms")
            .withFallback(pathConfig()))) {
      int ingress = node.ingressPort().orElseThrow();
      HttpResponse<String> first = TestNodes.post(ingress, "/v1/chat/completions", CHAT);
      assertThat(first.statusCode()).as("%s %s", first.headers().map(), first.body())
          .isEqualTo(200);

      node.router().tell(LLMRouter.Stop.INSTANCE);

      dev.sluice.core.testing.Await.until(java.time.Duration.ofSeconds(5),
          "requests fail closed once the router is gone", () -> {
            try {
              return TestNodes.post(ingress, "/v1/chat/completions", CHAT).statusCode() == 503;
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          });
      assertFailClosed(TestNodes.post(ingress, "/v1/chat/completions", CHAT),
          "router_unreachable");
    }
  }
}
