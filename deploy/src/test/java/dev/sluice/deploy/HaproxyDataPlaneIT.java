package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.RawStream;
import dev.sluice.core.testing.Sse;
import dev.sluice.deploy.haproxy.HaproxyConfig;
import dev.sluice.deploy.haproxy.RenderSettings;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HAProxy as a data plane (issue 13, first part): a real HAProxy running the generated config
 * and Lua action in front of a real node's replicas. Every routed request lands on the replica
 * the router chose, round-robin spreads evenly, and every router failure (unreachable, not 200,
 * an unparseable or unknown replica id) is a 503 with its reason, never an answer from an
 * unpinned server.
 */
class HaproxyDataPlaneIT {

  private static final int ROUTED_PORT = 19180;
  private static final int NO_ROUTER_PORT = 19181;
  private static final int CLOSED_PORT = 19182;
  private static final int RENDERED_PORT = 19183;
  private static final int FAKE_ROUTED_PORT = 19184;
  private static final int FAKE_ROUTER_PORT = 19185;
  private static final int STICKY_PORT = 19186;
  private static final int BODY_PORT = 19189;
  private static final int BODY_ROUTER_PORT = 19190;
  private static final int MODEL_PORT = 19193;
  private static final int MODEL_ROUTER_PORT = 19194;
  private static final int DEAD_PORT = 19195;
  private static final int DEAD_ROUTER_PORT = 19196;
  private static final int EMPTY_PORT = 19203;
  private static final int ALL_DOWN_PORT = 19204;
  private static final int NO_ROUTERS_PORT = 19211;
  private static final int CLOSED_PORT_2 = 19212;
  private static final int PROMPT_PORT = 19213;
  private static final int PROMPT_ROUTER_PORT = 19214;
  private static final String CHAT = "/v1/chat/completions";

  private static SluiceNode node;
  private static Haproxy routed;
  private static Haproxy noRouter;

  private static List<HaproxyConfig.Replica> replicas(SluiceNode of) {
    return Haproxy.replicas(of);
  }

  private static Haproxy start(int port, int routerPort) throws Exception {
    return start(node, port, routerPort);
  }

  /** HAProxy with the generated config in front of {@code of}'s replicas. */
  private static Haproxy start(SluiceNode of, int port, int routerPort) throws Exception {
    return Haproxy.rendered(of, new RenderSettings("127.0.0.1", port, "127.0.0.1",
        routerPort, 5, "", "x-session-id", Haproxy.routes(of)));
  }

  @BeforeAll
  static void startAll() throws Exception {
    node = TestNodes.local(TestNodes.app(2, 0, 1, 32), ConfigFactory.empty());
    routed = start(ROUTED_PORT, node.routerPort().orElseThrow());
    noRouter = start(NO_ROUTER_PORT, CLOSED_PORT);
  }

  @AfterAll
  static void stopAll() throws Exception {
    routed.close();
    noRouter.close();
    node.close();
  }

  @Test
  void everyRequestLandsOnTheRoutersPickAndRoundRobinSpreadsEvenly() throws Exception {
    Map<String, Integer> byReplica = new HashMap<>();
    for (int i = 0; i < 100; i++) {
      HttpResponse<String> response = TestNodes.post(ROUTED_PORT, CHAT,
          "{\"messages\":[{\"role\":\"user\",\"content\":\"via haproxy\"}],\"stream\":true}");
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      assertThat(response.body()).endsWith("data: [DONE]\n\n");
      String chosen = response.headers().firstValue("x-sluice-replica").orElseThrow();
      assertThat(response.headers().firstValue("x-sluice-served-by")).hasValue(chosen);
      byReplica.merge(chosen, 1, Integer::sum);
    }
    assertThat(byReplica).hasSize(2);
    assertThat(byReplica.values()).allSatisfy(count -> assertThat(count).isBetween(48, 52));
  }

  /**
   * The ingress's rule for request ids: the client's one safe {@code x-request-id} is kept, any
   * other gets a new UUID; the replica names the completion after it, and every answer, HAProxy's
   * own included, carries it.
   */
  @Test
  void requestIdsFollowTheIngresssRule() throws Exception {
    String chat = "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
    HttpResponse<String> kept = TestNodes.post(ROUTED_PORT, CHAT, chat,
        "x-request-id", "rid-7.a:b_c");
    assertThat(kept.headers().firstValue("x-request-id")).hasValue("rid-7.a:b_c");
    assertThat(Sse.json(kept.body()).path("id").asText()).isEqualTo("chatcmpl-rid-7.a:b_c");
    List<String[]> unsafe = List.of(new String[] {"x-request-id", "a b"},
        new String[] {"x-request-id", "x".repeat(129)}, new String[] {"x-request-id", "a,b"},
        new String[] {"x-request-id", "one", "x-request-id", "two"}, new String[] {});
    for (String[] headers : unsafe) {
      HttpResponse<String> replaced = TestNodes.post(ROUTED_PORT, CHAT, chat, headers);
      String id = replaced.headers().firstValue("x-request-id").orElseThrow();
      assertThat(id).as(String.join(" ", headers))
          .matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}");
      assertThat(Sse.json(replaced.body()).path("id").asText()).isEqualTo("chatcmpl-" + id);
    }
    HttpResponse<String> failed = TestNodes.post(NO_ROUTER_PORT, CHAT, chat,
        "x-request-id", "rid-8");
    assertThat(failed.statusCode()).isEqualTo(503);
    assertThat(failed.headers().firstValue("x-request-id")).hasValue("rid-8");
  }

  /**
   * HAProxy's default holds a response's small writes back for more (MSG_MORE, Nagle's
   * algorithm): a streamed answer then leaves in 16 KiB lumps or after about 200 ms, not as its
   * tokens come. The generated config turns that off, as Ray does. 500 tokens at 1 ms each
   * (about 75 KiB) take as many reads through HAProxy as from the replica itself, give or take
   * how the two reads' timing falls (241 against 485 in one CI run; at least a quarter here);
   * held back, they came in 3 reads where the replica needed 17.
   */
  @Test
  void tokensLeaveHaproxyAsTheyArrive() throws Exception {
    int direct = readsOfALongAnswer(replicas(node).get(0).port());
    int viaHaproxy = readsOfALongAnswer(ROUTED_PORT);
    assertThat(direct).as("reads of the answer from the replica itself").isGreaterThan(8);
    assertThat(viaHaproxy * 4).as("reads through HAProxy (x4) against the replica's %d", direct)
        .isGreaterThanOrEqualTo(direct);
  }

  private static int readsOfALongAnswer(int port) throws Exception {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
      socket.setSoTimeout(15_000);
      String body = RawStream.longChat(500);
      socket.getOutputStream().write(("POST " + CHAT + " HTTP/1.1\r\nHost: x\r\n"
          + "Content-Type: application/json\r\nContent-Length: " + body.length()
          + "\r\n\r\n" + body).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
      StringBuilder answer = new StringBuilder();
      byte[] buffer = new byte[64 * 1024];
      int reads = 0;
      while (answer.indexOf("data: [DONE]") < 0) {
        int read = socket.getInputStream().read(buffer);
        assertThat(read).as("the answer ended early: " + answer).isPositive();
        answer.append(new String(buffer, 0, read, java.nio.charset.StandardCharsets.ISO_8859_1));
        reads++;
      }
      assertThat(answer.toString()).startsWith("HTTP/1.1 200");
      return reads;
    }
  }

  @Test
  void otherRoutesAreLoadBalancedAndHealthIsAnswered() throws Exception {
    assertThat(TestNodes.get(ROUTED_PORT, "/-/healthz").statusCode()).isEqualTo(200);
    HttpResponse<String> models = TestNodes.get(ROUTED_PORT, "/v1/models");
    assertThat(models.statusCode()).isEqualTo(200);
    assertThat(models.headers().firstValue("x-sluice-replica")).isEmpty();
  }

  /**
   * HAProxy's health is whether it could serve: 503 while no replica's server is up (none known
   * yet, or every one failing its checks), as Ray's HAProxy answers, so that a load balancer in
   * front of several HAProxies leaves such a one out.
   */
  @Test
  void healthIsA503WhileNoReplicasServerIsUp() throws Exception {
    RenderSettings settings = new RenderSettings("127.0.0.1", EMPTY_PORT,
        "127.0.0.1", node.routerPort().orElseThrow(), 5, "", "x-session-id", Haproxy.routes(node));
    int closed;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    HaproxyConfig.Replica gone = new HaproxyConfig.Replica("llm#sim#gone0000", "127.0.0.1",
        closed);
    Path dir = Files.createTempDirectory("sluice-haproxy-health");
    Path lua = dir.resolve("sluice_route.lua");
    HaproxyConfig.writeFiles(lua);
    try (Haproxy empty = Haproxy.withConfig(Files.createDirectory(dir.resolve("empty")),
            HaproxyConfig.render(settings, List.of(), lua), EMPTY_PORT);
        Haproxy allDown = Haproxy.withConfig(Files.createDirectory(dir.resolve("down")),
            HaproxyConfig.render(
            new RenderSettings("127.0.0.1", ALL_DOWN_PORT, "127.0.0.1",
                node.routerPort().orElseThrow(), 5, "", "x-session-id", Haproxy.routes(node)),
            List.of(gone), lua), ALL_DOWN_PORT)) {
      HttpResponse<String> none = TestNodes.get(EMPTY_PORT, "/-/healthz");
      assertThat(none.statusCode()).isEqualTo(503);
      assertThat(none.body()).isEqualTo("no replica is up: no server passes its health check");
      long end = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
      while (TestNodes.get(ALL_DOWN_PORT, "/-/healthz").statusCode() != 503) {
        assertThat(System.nanoTime()).as("the refusing server was never marked down")
            .isLessThan(end);
        Thread.sleep(100);
      }
    }
    HttpResponse<String> up = TestNodes.get(ROUTED_PORT, "/-/healthz");
    assertThat(up.statusCode()).isEqualTo(200);
    assertThat(up.body()).isEqualTo("ok");
  }

  @Test
  void anUnreachableRouterIsA503WithItsReasonNeverAnUnpinnedAnswer() throws Exception {
    HttpResponse<String> response = TestNodes.post(NO_ROUTER_PORT, CHAT,
        "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.headers().firstValue("x-serve-reason")).hasValue("router_unreachable");
    assertThat(response.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
    assertThat(response.body()).isEqualTo("Ingress request router failed: router_unreachable");
    assertThat(response.headers().firstValue("x-sluice-served-by")).isEmpty();
  }

  @Test
  void sluiceHaproxyRenderWritesAConfigThatServes() throws Exception {
    Path dir = Files.createTempDirectory("sluice-haproxy-render");
    Path lua = dir.resolve("route.lua");
    java.io.StringWriter out = new java.io.StringWriter();
    java.io.StringWriter err = new java.io.StringWriter();
    int code = SluiceCli.execute(new java.io.PrintWriter(out, true),
        new java.io.PrintWriter(err, true), "haproxy", "render",
        "--address", "http://127.0.0.1:" + node.apiPort().orElseThrow(),
        "--router", "127.0.0.1:" + CLOSED_PORT + ",127.0.0.1:" + node.routerPort().orElseThrow(),
        "--bind", "127.0.0.1:" + RENDERED_PORT, "--lua", lua.toString(),
        "--ingress", "localhost:" + node.ingressPort().orElseThrow());
    assertThat(code).as(err.toString()).isZero();
    assertThat(Files.readString(lua)).isEqualTo(HaproxyConfig.lua());
    assertThat(out.toString()).contains("lua-load \"" + lua.toAbsolutePath() + "\"")
        .contains("setenv SLUICE_ROUTER_PORT " + CLOSED_PORT + "\n  setenv SLUICE_MORE_ROUTERS "
            + "\"127.0.0.1:" + node.routerPort().orElseThrow() + "\"\n")
        .contains("bind 127.0.0.1:" + RENDERED_PORT)
        .contains("setenv SLUICE_INGRESS_HOST \"127.0.0.1\"\n  setenv SLUICE_INGRESS_PORT "
            + node.ingressPort().orElseThrow() + "\n");
    // The first router refuses every connection (its node gone): the next one routes.
    try (Haproxy rendered = Haproxy.withConfig(dir, out.toString(), RENDERED_PORT)) {
      for (int i = 0; i < 4; i++) {
        HttpResponse<String> response = TestNodes.post(RENDERED_PORT, CHAT,
            "{\"messages\":[{\"role\":\"user\",\"content\":\"rendered\"}],\"stream\":true}");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("x-sluice-served-by"))
            .isEqualTo(response.headers().firstValue("x-sluice-replica")).isPresent();
      }
    }
  }

  @Test
  void whenEveryRouterRefusesTheAnswerIsRouterUnreachable() throws Exception {
    try (Haproxy none = Haproxy.rendered(node, new RenderSettings("127.0.0.1", NO_ROUTERS_PORT,
        "127.0.0.1", CLOSED_PORT, 5, "", "x-session-id", Haproxy.routes(node))
        .withMoreRouters(List.of("127.0.0.1:" + CLOSED_PORT_2)))) {
      HttpResponse<String> response = TestNodes.post(NO_ROUTERS_PORT, CHAT,
          "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(response.headers().firstValue("x-serve-reason")).hasValue("router_unreachable");
      assertThat(response.headers().firstValue("x-sluice-served-by")).isEmpty();
    }
  }

  /** A stand-in router on {@code port}: every route answered with {@code status}, {@code body}. */
  private static com.sun.net.httpserver.HttpServer fakeRouter(int port, int status, String body)
      throws Exception {
    var server = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress("127.0.0.1", port), 16);
    server.createContext("/internal/route", exchange -> {
      byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("content-type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    });
    server.start();
    return server;
  }

  @Test
  void everyRouterFailureIsA503WithItsReason() throws Exception {
    record Case(int status, String body, String reason) {}
    List<Case> cases = List.of(
        new Case(503, "{\"detail\":\"no replicas\"}", "router_non_200"),
        new Case(200, "not json at all", "unparseable_replica_id"),
        new Case(200, "{\"host\":\"127.0.0.1\",\"port\":1,\"replica_id\":\"llm#sim#nosuch\"}",
            "unknown_replica_id"));
    for (Case c : cases) {
      var router = fakeRouter(FAKE_ROUTER_PORT, c.status(), c.body());
      try (Haproxy haproxy = start(FAKE_ROUTED_PORT, FAKE_ROUTER_PORT)) {
        HttpResponse<String> response = TestNodes.post(FAKE_ROUTED_PORT, CHAT,
            "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"stream\":true}");
        assertThat(response.statusCode()).as(c.reason()).isEqualTo(503);
        assertThat(response.headers().firstValue("x-serve-reason")).hasValue(c.reason());
        assertThat(response.body()).isEqualTo("Ingress request router failed: " + c.reason());
        assertThat(response.headers().firstValue("x-sluice-served-by")).isEmpty();
      } finally {
        router.stop(0);
      }
    }
  }

  @Test
  void sessionsStayOnTheirReplicaWithConsistentHash() throws Exception {
    String app = """
        applications:
          - name: sticky
            llm_configs:
              - model_loading_config: {model_id: sim}
                engine_config: {type: simulated, ttft_ms: 0, itl_ms: 1, default_max_tokens: 4}
                deployment_config:
                  num_replicas: 3
                  max_ongoing_requests: 32
                  request_router_config: {request_router_class: consistent-hash}
        """;
    try (SluiceNode sticky = TestNodes.local(app, ConfigFactory.empty())) {
      try (Haproxy haproxy = start(sticky, STICKY_PORT, sticky.routerPort().orElseThrow())) {
        Map<String, String> home = new HashMap<>();
        for (int turn = 0; turn < 5; turn++) {
          for (int session = 0; session < 20; session++) {
            HttpResponse<String> response = TestNodes.post(STICKY_PORT, CHAT,
                "{\"messages\":[{\"role\":\"user\",\"content\":\"turn\"}],\"stream\":true}",
                "x-session-id", "session-" + session);
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            String servedBy = response.headers().firstValue("x-sluice-served-by").orElseThrow();
            assertThat(home.putIfAbsent("session-" + session, servedBy))
                .as("session %d, turn %d", session, turn).isIn(null, servedBy);
          }
        }
        assertThat(new java.util.HashSet<>(home.values())).hasSizeGreaterThan(1);
      }
    }
  }

  @Test
  void serverNamesAreSanitisedAsRayDoes() {
    assertThat(HaproxyConfig.serverName("llm#sim#ab12")).isEqualTo("llm-sim-ab12");
    assertThat(HaproxyConfig.serverName("app/dep#x y")).isEqualTo("app.dep-x_y");
  }

  /** What the router is asked (recorded by {@code record}); it always picks {@code replicaId}. */
  private interface Recorder {
    void record(com.sun.net.httpserver.HttpExchange exchange) throws java.io.IOException;
  }

  /** A stand-in for the router's {@code POST /internal/route} that always picks one replica. */
  private static com.sun.net.httpserver.HttpServer fakeRouter(int port, String replicaId,
      Recorder record) throws java.io.IOException {
    return fakeRouter(port, exchange -> {
      record.record(exchange);
      return replicaId;
    });
  }

  /** What a fake router picks, given what it is asked. */
  private interface Picker {
    String pick(com.sun.net.httpserver.HttpExchange exchange) throws java.io.IOException;
  }

  /** A stand-in for the router's {@code POST /internal/route} that picks with {@code picker}. */
  private static com.sun.net.httpserver.HttpServer fakeRouter(int port, Picker picker)
      throws java.io.IOException {
    var router = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress("127.0.0.1", port), 16);
    router.createContext("/internal/route", exchange -> {
      byte[] bytes = ("{\"host\":\"127.0.0.1\",\"port\":1,\"replica_id\":\""
          + picker.pick(exchange) + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    });
    router.start();
    return router;
  }

  /**
   * A replica that died before the cluster noticed (the router still picks it): the request
   * pinned to it fails closed as the ingress's would, and its server is marked down at once, so
   * the requests after it have the router pick again without it.
   */
  @Test
  void aPinnedReplicaThatRefusesFailsClosedAndIsLeftOutAfterwards() throws Exception {
    HaproxyConfig.Replica live = replicas(node).get(0);
    int deadPort;
    try (java.net.ServerSocket closed = new java.net.ServerSocket(0)) {
      deadPort = closed.getLocalPort();
    }
    HaproxyConfig.Replica dead = new HaproxyConfig.Replica(live.id().replaceAll("#[^#]+$",
        "#dead0000"), "127.0.0.1", deadPort);
    List<String> excludes = new java.util.concurrent.CopyOnWriteArrayList<>();
    var router = fakeRouter(DEAD_ROUTER_PORT, exchange -> {
      String exclude = exchange.getRequestHeaders().getFirst("x-sluice-exclude");
      excludes.add(String.valueOf(exclude));
      return dead.id().equals(exclude) ? live.id() : dead.id();
    });
    Path dir = Files.createTempDirectory("sluice-haproxy-dead");
    Path lua = dir.resolve("sluice_route.lua");
    HaproxyConfig.writeFiles(lua);
    RenderSettings settings = new RenderSettings("127.0.0.1", DEAD_PORT,
        "127.0.0.1", DEAD_ROUTER_PORT, 5, "", "x-session-id", Haproxy.routes(node));
    // The dead replica's health checks go to the live one's port: they keep its server up, so
    // that only the refused connection itself can mark it down (a failed check would, too, at a
    // moment the test does not control).
    String config = HaproxyConfig.render(settings, List.of(live, dead), lua).replace(
        "127.0.0.1:" + deadPort + " check ", "127.0.0.1:" + deadPort + " check port "
            + live.port() + " ");
    assertThat(config).contains("check port " + live.port());
    String chat = "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
    try (Haproxy haproxy = Haproxy.withConfig(dir, config, DEAD_PORT)) {
      HttpResponse<String> refused = TestNodes.post(DEAD_PORT, CHAT, chat);
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
      assertThat(refused.headers().firstValue("x-serve-reason")).hasValue("replica_unreachable");
      assertThat(refused.body()).isEqualTo("Ingress request router failed: replica_unreachable");
      assertThat(excludes).containsExactly("null");

      for (int i = 0; i < 3; i++) {
        HttpResponse<String> served = TestNodes.post(DEAD_PORT, CHAT, chat);
        assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
        assertThat(served.headers().firstValue("x-sluice-served-by")).hasValue(live.id());
      }
      assertThat(excludes).containsExactly("null", "null", dead.id(), "null", dead.id(), "null",
          dead.id());
    } finally {
      router.stop(0);
    }
  }

  @Test
  void withoutBodyForwardingTheRouterGetsTheBodysModelAsTheIngressReadsIt() throws Exception {
    String replicaId = replicas(node).get(0).id();
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    var router = fakeRouter(MODEL_ROUTER_PORT, replicaId, exchange -> seen.add(
        exchange.getRequestHeaders().getFirst("x-sluice-model") + "|"
            + exchange.getRequestHeaders().getFirst("x-sluice-app") + "|"
            + exchange.getRequestBody().readAllBytes().length));
    String messages = "\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]";
    // Each body, and the model the ingress's ModelField reads from it (null: none).
    Map<String, String> bodies = new java.util.LinkedHashMap<>();
    bodies.put("{\"model\":\"alpha\"," + messages + "}", "alpha");
    bodies.put("{\"messages\":[{\"role\":\"user\",\"content\":\"a \\\"model\\\": [{\"}],"
        + "\"stream\":false, \"n\": 1, \"ok\": true,\"model\" : \"beta\"}", "beta");
    bodies.put("{\"metadata\":{\"model\":\"inner\"},\"model\":\"outer\"," + messages + "}",
        "outer");
    bodies.put("{\"mod\\u0065l\":\"gamma\\/1\"," + messages + "}", "gamma/1");
    bodies.put("{\"model\":\"a\",\"model\":\"b\"," + messages + "}", null);
    bodies.put("{\"model\":7," + messages + "}", null);
    bodies.put("{" + messages + "}", null);
    Path dir = Files.createTempDirectory("sluice-haproxy-model");
    Path lua = dir.resolve("sluice_route.lua");
    HaproxyConfig.writeFiles(lua);
    RenderSettings settings = new RenderSettings("127.0.0.1", MODEL_PORT,
        "127.0.0.1", MODEL_ROUTER_PORT, 5, "", "x-session-id", Haproxy.routes(node))
        .withModels(Map.of(Haproxy.routes(node).get("/"), List.of("sim", "other")));
    try (Haproxy haproxy = Haproxy.withConfig(dir,
        HaproxyConfig.render(settings, replicas(node), lua), MODEL_PORT)) {
      for (String body : bodies.keySet()) {
        TestNodes.post(MODEL_PORT, CHAT, body);
      }
      String app = Haproxy.routes(node).get("/");
      assertThat(seen).containsExactlyElementsOf(bodies.values().stream()
          .map(model -> model + "|" + app + "|0").toList());
      for (var each : bodies.entrySet()) {
        assertThat(dev.sluice.core.openai.ModelField.find(each.getKey().getBytes(
            java.nio.charset.StandardCharsets.UTF_8))).as(each.getKey())
            .isEqualTo(java.util.Optional.ofNullable(each.getValue()));
      }
    } finally {
      router.stop(0);
    }
  }

  @Test
  void withBodyForwardingTheRouterGetsTheBodyCutAtTheLimitAndTheReplicaAllOfIt()
      throws Exception {
    String replicaId = replicas(node).get(0).id();
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    var router = fakeRouter(BODY_ROUTER_PORT, replicaId, exchange -> seen.add(
        new String(exchange.getRequestBody().readAllBytes(),
            java.nio.charset.StandardCharsets.UTF_8) + "|"
            + exchange.getRequestHeaders().getFirst("x-body-truncated")));
    Path dir = Files.createTempDirectory("sluice-haproxy-body");
    Path lua = dir.resolve("sluice_route.lua");
    HaproxyConfig.writeFiles(lua);
    RenderSettings settings = new RenderSettings("127.0.0.1", BODY_PORT,
        "127.0.0.1", BODY_ROUTER_PORT, 5, "", "x-session-id", Haproxy.routes(node))
        .withForwardBodyLimit(64);
    try (Haproxy haproxy = Haproxy.withConfig(dir,
        HaproxyConfig.render(settings, replicas(node), lua), BODY_PORT)) {
      String small = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";
      String large = "{\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(200)
          + "\"}],\"stream\":true}";
      for (String body : List.of(small, large)) {
        HttpResponse<String> response = TestNodes.post(BODY_PORT, CHAT, body);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("x-sluice-served-by")).hasValue(replicaId);
      }
      assertThat(seen).containsExactly(small + "|null",
          large.substring(0, 64) + "|64/" + large.length());
    } finally {
      router.stop(0);
    }
  }

  @Test
  void withoutBodyForwardingAnApplicationRoutedByThePromptStillSendsWhatHaproxyHolds()
      throws Exception {
    String replicaId = replicas(node).get(0).id();
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    var router = fakeRouter(PROMPT_ROUTER_PORT, replicaId, exchange -> seen.add(
        new String(exchange.getRequestBody().readAllBytes(),
            java.nio.charset.StandardCharsets.UTF_8) + "|"
            + exchange.getRequestHeaders().getFirst("x-body-truncated")));
    String app = Haproxy.routes(node).get("/");
    RenderSettings plain = new RenderSettings("127.0.0.1", PROMPT_PORT,
        "127.0.0.1", PROMPT_ROUTER_PORT, 5, "", "x-session-id", Haproxy.routes(node));
    String small = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    String large = "{\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(40_000)
        + "\"}]}";
    try {
      RenderSettings prompted = plain.withPromptApps(Set.of(app));
      for (RenderSettings settings : List.of(plain, prompted,
          prompted.withIngress("127.0.0.1", node.ingressPort().orElseThrow()))) {
        Path dir = Files.createTempDirectory("sluice-haproxy-prompt");
        Path lua = dir.resolve("sluice_route.lua");
        HaproxyConfig.writeFiles(lua);
        try (Haproxy haproxy = Haproxy.withConfig(dir,
            HaproxyConfig.render(settings, replicas(node), lua), PROMPT_PORT)) {
          for (String body : List.of(small, large)) {
            HttpResponse<String> response = TestNodes.post(PROMPT_PORT, CHAT, body);
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
          }
        }
      }
      // With the node's own ingress at hand, the cut one went there (it reads the whole body and
      // asks the node's router): this router saw only the small one.
      assertThat(seen).hasSize(5);
      assertThat(seen.get(4)).isEqualTo(small + "|null");
      assertThat(seen.subList(0, 2)).as("not routed by the prompt: no body")
          .containsExactly("|null", "|null");
      assertThat(seen.get(2)).isEqualTo(small + "|null");
      String[] cut = seen.get(3).split("\\|");
      assertThat(large).startsWith(cut[0]);
      assertThat(cut[1]).as("what HAProxy held of it, marked")
          .isEqualTo(cut[0].length() + "/" + large.length());
      assertThat(cut[0].length()).isGreaterThan(8_000);
    } finally {
      router.stop(0);
    }
  }
}
