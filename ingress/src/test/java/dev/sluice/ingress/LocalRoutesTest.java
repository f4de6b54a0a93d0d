package dev.sluice.ingress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.ingress.edge.Answer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Applications under their route prefixes, as Ray Serve serves them. */
class LocalRoutesTest {

  private static ReplicaSet set(String app, String deployment, String prefix, long version,
      boolean removed) {
    return new ReplicaSet(new DeploymentId(app, deployment), version, prefix, List.of(deployment),
        "round-robin", Map.of(), List.of(), removed);
  }

  private static String body(Answer answer) {
    return new String(answer.body(), StandardCharsets.UTF_8);
  }

  @Test
  void eachApplicationServesItsModelsUnderItsPrefix() {
    ReplicaSetView view = new ReplicaSetView();
    view.apply(set("llm", "alpha", "/", 1, false));
    view.apply(set("chat", "m-a", "/chat", 1, false));
    LocalRoutes routes = new LocalRoutes(view);

    assertThat(routes.target("/chat/v1/chat/completions")).isEqualTo(new LocalRoutes.Target(
        Optional.of("chat"), "/chat", "/v1/chat/completions"));
    assertThat(routes.target("/v1/completions")).isEqualTo(new LocalRoutes.Target(
        Optional.of("llm"), "/", "/v1/completions"));
    assertThat(body(routes.answer("GET", "/chat/v1/models", "r"))).contains("\"m-a\"")
        .doesNotContain("alpha");
    assertThat(body(routes.answer("GET", "/v1/models", "r"))).contains("\"alpha\"")
        .doesNotContain("m-a");
    assertThat(routes.answer("GET", "/chat/v1/models/m-a", "r").status()).isEqualTo(200);
    assertThat(routes.answer("GET", "/chat/v1/models/alpha", "r").status()).isEqualTo(404);
    assertThat(routes.answer("GET", "/chat/v1/chat/completions", "r").header("allow"))
        .isEqualTo("POST");
    // The ingress's own paths are under no prefix.
    assertThat(routes.answer("GET", "/-/healthz", "r").status()).isEqualTo(200);
    assertThat(routes.answer("GET", "/chat/-/healthz", "r").status()).isEqualTo(404);
    assertThat(body(routes.answer("GET", "/-/routes", "r"))).isEqualTo("{}");
  }

  @Test
  void theReplicaGetsThePathWithoutThePrefixAndTheQueryAsSent() {
    LocalRoutes.Target chat = new LocalRoutes.Target(Optional.of("chat"), "/chat",
        "/v1/completions");
    assertThat(chat.upstream("/chat/v1/completions")).isEqualTo("/v1/completions");
    assertThat(chat.upstream("/chat/v1/completions?a=1&b=/chat")).isEqualTo(
        "/v1/completions?a=1&b=/chat");
    LocalRoutes.Target root = new LocalRoutes.Target(Optional.of("llm"), "/", "/v1/completions");
    assertThat(root.upstream("/v1/completions?x")).isEqualTo("/v1/completions?x");
  }

  @Test
  void aPathUnderNoApplicationIs404NamingThePrefixesUntilNoApplicationIsLeft() {
    ReplicaSetView view = new ReplicaSetView();
    LocalRoutes routes = new LocalRoutes(view);
    assertThat(routes.target("/v1/chat/completions")).as("none known yet: the router says why")
        .isEqualTo(new LocalRoutes.Target(Optional.empty(), "/", "/v1/chat/completions"));
    view.apply(set("chat", "m-a", "/chat", 1, false));
    view.apply(set("team", "m-b", "/team/b", 1, false));

    assertThat(routes.target("/v1/chat/completions")).isNull();
    Answer notFound = routes.answer("POST", "/v1/chat/completions", "r");
    assertThat(notFound.status()).isEqualTo(404);
    assertThat(body(notFound)).contains(
        "Not found: /v1/chat/completions (route prefixes: /chat, /team/b)");
    assertThat(routes.answer("GET", "/team/v1/models", "r").status()).isEqualTo(404);
    assertThat(body(routes.answer("GET", "/team/b/v1/models", "r"))).contains("\"m-b\"");

    view.apply(set("chat", "m-a", "/chat", 2, true));
    view.apply(set("team", "m-b", "/team/b", 2, true));
    assertThat(routes.target("/chat/v1/chat/completions")).as("all removed: none known")
        .isEqualTo(new LocalRoutes.Target(Optional.empty(), "/", "/chat/v1/chat/completions"));
  }
}
