package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.Sse;
import dev.sluice.deploy.haproxy.HaproxyConfig;
import dev.sluice.deploy.haproxy.HaproxyDataPlane;
import dev.sluice.core.testing.RawHttp;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * HAProxy run by a node (issue 13): {@code sluice.haproxy.port} starts the real HAProxy in front
 * of the same replicas and router, re-renders and reloads it when the replica sets change without
 * failing a request under load, holds clients to the ingress's API keys and replicas to the
 * cluster token, and stops with the node, also when the node is killed.
 */
class ManagedHaproxyIT {

  private static final int HAPROXY_PORT = 19187;
  private static final int KILLED_HAPROXY_PORT = 19188;
  private static final int KILLED_REMOTING = 18990;
  private static final int GUARDED_HAPROXY_PORT = 19191;
  private static final int PREFIX_PORT = 19192;
  private static final int FOLLOWING_HAPROXY_PORT = 19197;
  private static final int STOPPED_HAPROXY_PORT = 19198;
  private static final int METERED_HAPROXY_PORT = 19199;
  private static final int HAPROXY_METRICS_PORT = 19200;
  private static final int ROLLED_HAPROXY_PORT = 19202;
  private static final String CHAT = "/v1/chat/completions";

  private static int servers(HaproxyDataPlane plane) {
    return (int) plane.runningConfig().lines().filter(line -> line.startsWith("  server ")
            && !line.startsWith("  server " + HaproxyConfig.DYNAMIC_SERVER + " "))
        .count();
  }

  private static void awaitServers(HaproxyDataPlane plane, int count) throws Exception {
    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (servers(plane) != count) {
      assertThat(System.nanoTime()).as("HAProxy never had %d servers:\n%s", count,
          plane.runningConfig()).isLessThan(end);
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  private static void scale(SluiceNode node, int replicas) throws Exception {
    HttpResponse<String> response = TestNodes.api(node.apiPort().orElseThrow(), "PATCH",
        "/api/applications/llm/deployments/sim", "{\"num_replicas\": " + replicas + "}",
        "application/json");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  /** Streams through HAProxy from several clients until stopped, keeping every failure. */
  private static final class Load implements AutoCloseable {
    final Map<String, AtomicInteger> servedBy = new ConcurrentHashMap<>();
    final List<String> failures = new CopyOnWriteArrayList<>();
    final AtomicInteger done = new AtomicInteger();
    volatile String phase = "2 replicas";
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> clients = new ArrayList<>();

    Load(int port, int concurrency) {
      for (int i = 0; i < concurrency; i++) {
        Thread client = new Thread(() -> {
          while (running.get()) {
            long sent = System.nanoTime();
            try {
              HttpResponse<String> response = TestNodes.post(port, CHAT,
                  "{\"messages\":[{\"role\":\"user\",\"content\":\"load\"}],\"stream\":true}");
              String replica = response.headers().firstValue("x-sluice-served-by").orElse("");
              if (response.statusCode() != 200 || !response.body().endsWith("data: [DONE]\n\n")
                  || !response.headers().firstValue("x-sluice-replica").orElse("?")
                      .equals(replica)) {
                failures.add(phase + ": after " + (System.nanoTime() - sent) / 1_000_000
                    + " ms: " + response.statusCode() + " " + response.headers().map() + " "
                    + response.body());
              } else {
                servedBy.computeIfAbsent(replica, r -> new AtomicInteger()).incrementAndGet();
              }
            } catch (Exception e) {
              failures.add(phase + ": " + e);
            }
            done.incrementAndGet();
          }
        }, "haproxy-load-" + i);
        clients.add(client);
        client.start();
      }
    }

    /** Waits until {@code replicas} distinct replicas have served since {@code before}. */
    void awaitServedBy(int replicas) throws Exception {
      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (servedBy.size() < replicas) {
        assertThat(System.nanoTime()).as("served by %s only", servedBy.keySet()).isLessThan(end);
        TimeUnit.MILLISECONDS.sleep(50);
      }
    }

    /** Lets at least {@code more} further requests finish. */
    void awaitMore(int more) throws Exception {
      int target = done.get() + more;
      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (done.get() < target) {
        assertThat(System.nanoTime()).isLessThan(end);
        TimeUnit.MILLISECONDS.sleep(20);
      }
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      for (Thread client : clients) {
        client.join(30_000);
      }
    }
  }

  @Test
  void eachApplicationIsServedUnderItsRoutePrefixAsThroughTheIngress() throws Exception {
    // Two applications serving a model of the same name: the path decides which serves it; and
    // in the one with two models, the body's model which deployment (body forwarding off).
    String apps = """
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: sim}
                engine_config: {type: simulated, ttft_ms: 0, itl_ms: 1, default_max_tokens: 4}
          - name: chat
            route_prefix: /chat
            llm_configs:
              - model_loading_config: {model_id: sim}
                engine_config: {type: simulated, ttft_ms: 0, itl_ms: 1, default_max_tokens: 4}
              - model_loading_config: {model_id: other}
                engine_config: {type: simulated, ttft_ms: 0, itl_ms: 1, default_max_tokens: 4}
        """;
    try (SluiceNode two = TestNodes.local(apps,
        ConfigFactory.parseString("sluice.haproxy.port = " + PREFIX_PORT))) {
      awaitServers(two.haproxy().orElseThrow(), 3);
      int ingress = two.ingressPort().orElseThrow();
      String sim = "{\"model\":\"sim\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
      for (int port : new int[] {ingress, PREFIX_PORT}) {
        for (String path : List.of(CHAT, "/chat" + CHAT, "/chat" + CHAT + "?x=/chat",
            "/chat/v1/completions")) {
          HttpResponse<String> response = TestNodes.post(port, path,
              path.endsWith("/v1/completions") ? "{\"model\":\"sim\",\"prompt\":\"x\"}" : sim);
          assertThat(response.statusCode()).as(port + path + response.body()).isEqualTo(200);
          assertThat(response.headers().firstValue("x-sluice-served-by").orElseThrow())
              .as(port + path).startsWith(path.startsWith("/chat") ? "chat#sim#" : "llm#sim#");
        }
        HttpResponse<String> other = TestNodes.post(port, "/chat" + CHAT,
            sim.replace("\"sim\"", "\"other\""));
        assertThat(other.headers().firstValue("x-sluice-served-by").orElseThrow())
            .as(port + other.body()).startsWith("chat#other#");
        // The model after a long prompt (as clients often send it), beyond the part of the body
        // HAProxy buffers (16 KiB): HAProxy hands the request to the node's own ingress.
        HttpResponse<String> farModel = TestNodes.post(port, "/chat" + CHAT,
            "{\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(40_000)
                + "\"}],\"model\":\"other\"}");
        assertThat(farModel.statusCode()).as(port + farModel.body()).isEqualTo(200);
        assertThat(farModel.headers().firstValue("x-sluice-served-by").orElseThrow())
            .as(port + " model after 40 KB").startsWith("chat#other#");
        for (int i = 0; i < 4; i++) {
          // Every time, whichever replica the request would reach: the application's models.
          assertThat(Sse.json(TestNodes.get(port, "/chat/v1/models").body()).path("data")
              .findValuesAsText("id")).as(port + " /chat/v1/models")
              .containsExactly("other", "sim");
          assertThat(Sse.json(TestNodes.get(port, "/v1/models").body()).path("data")
              .findValuesAsText("id")).as(port + " /v1/models").containsExactly("sim");
        }
        assertThat(TestNodes.get(port, "/chat/v1/models/other").statusCode()).isEqualTo(200);
        assertThat(TestNodes.get(port, "/v1/models/other").statusCode()).isEqualTo(404);
        assertThat(TestNodes.get(port, "/chatbot/v1/models").statusCode())
            .as("a prefix takes whole segments: the root application's 404").isEqualTo(404);
      }
      // The request's own mistakes get the same answer from both, and reach no replica: a
      // model the application does not serve (the root's model `sim` is not `chat`'s `nope`),
      // also where it has one deployment (an engine's own 404 has its own shape), and none
      // where it has two.
      String nope = sim.replace("\"sim\"", "\"nope\"");
      for (String[] mistake : List.of(new String[] {"/chat" + CHAT, nope, "404"},
          new String[] {CHAT, nope, "404"}, new String[] {"/chat" + CHAT,
              "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", "400"})) {
        HttpResponse<String> viaIngress = TestNodes.post(ingress, mistake[0], mistake[1]);
        HttpResponse<String> viaHaproxy = TestNodes.post(PREFIX_PORT, mistake[0], mistake[1]);
        assertThat(viaIngress.statusCode()).as(viaIngress.body())
            .isEqualTo(Integer.parseInt(mistake[2]));
        assertThat(viaHaproxy.statusCode()).as(viaHaproxy.body())
            .isEqualTo(viaIngress.statusCode());
        assertThat(Sse.json(viaHaproxy.body())).isEqualTo(Sse.json(viaIngress.body()));
        assertThat(viaHaproxy.headers().firstValue("x-serve-reason")).as(mistake[0])
            .isPresent().isEqualTo(viaIngress.headers().firstValue("x-serve-reason"));
        assertThat(viaHaproxy.headers().firstValue("x-sluice-served-by")).isEmpty();
      }
      // Only the completion routes reach a replica, through either: a replica's other routes
      // (a simulated engine's fault switch, its metrics) are not for clients, and HAProxy sends
      // replicas the cluster token. Everything else gets the ingress's 404 or 405.
      for (String[] request : List.of(new String[] {"POST", "/-/sim/fault?mode=hang"},
          new String[] {"GET", "/metrics"}, new String[] {"POST", "/chat/v1/embeddings"},
          new String[] {"GET", CHAT}, new String[] {"DELETE", "/chat/v1/completions"},
          new String[] {"POST", "/v1/models"})) {
        HttpResponse<String> viaIngress = send(ingress, request[0], request[1]);
        HttpResponse<String> viaHaproxy = send(PREFIX_PORT, request[0], request[1]);
        assertThat(viaIngress.statusCode()).as(String.join(" ", request)).isIn(404, 405);
        assertThat(viaHaproxy.statusCode()).as(String.join(" ", request) + viaHaproxy.body())
            .isEqualTo(viaIngress.statusCode());
        assertThat(Sse.json(viaHaproxy.body())).isEqualTo(Sse.json(viaIngress.body()));
        assertThat(viaHaproxy.headers().firstValue("allow"))
            .isEqualTo(viaIngress.headers().firstValue("allow"));
      }
      assertThat(TestNodes.post(PREFIX_PORT, CHAT, sim).statusCode()).as("no fault switched on")
          .isEqualTo(200);
      // Without a root application, a path under no prefix is 404 from both.
      TestNodes.api(two.apiPort().orElseThrow(), "PUT", "/api/applications",
          apps.substring(apps.indexOf("  - name: chat")).replace("  - name: chat",
              "applications:\n  - name: chat"), "application/yaml");
      // (Until HAProxy's reload, the router answers for the application it no longer has.)
      Await.untilOk(Duration.ofSeconds(30), "the root application is gone, from HAProxy too",
          () -> TestNodes.post(PREFIX_PORT, CHAT, sim).body().contains("route prefixes")
              && TestNodes.post(ingress, CHAT, sim).body().contains("route prefixes"));
      assertThat(TestNodes.post(PREFIX_PORT, CHAT, sim).body())
          .contains("route prefixes: /chat)");
      assertThat(TestNodes.post(ingress, CHAT, sim).body())
          .contains("Not found: /v1/chat/completions (route prefixes: /chat)");
      assertThat(TestNodes.post(PREFIX_PORT, "/chat" + CHAT, sim).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void scalingUpAndDownUnderLoadReloadsHaproxyAndFailsNoRequest() throws Exception {
    SluiceNode node = TestNodes.local(TestNodes.app(2, 0, 2, 64),
        ConfigFactory.parseString("sluice.haproxy.port = " + HAPROXY_PORT));
    Set<ProcessHandle> haproxyProcesses;
    try {
      HaproxyDataPlane plane = node.haproxy().orElseThrow();
      awaitServers(plane, 2);
      Path lua = plane.dir().resolve("sluice_route.lua");
      FileTime luaWritten = Files.getLastModifiedTime(lua);
      haproxyProcesses = new java.util.HashSet<>(plane.process().handle().descendants().toList());
      haproxyProcesses.add(plane.process().handle());
      assertThat(haproxyProcesses).anySatisfy(process -> assertThat(
          process.info().command().orElse("")).endsWith("haproxy"));

      try (Load load = new Load(HAPROXY_PORT, 6)) {
        load.awaitServedBy(2);
        load.phase = "scaling to 4";
        scale(node, 4);
        awaitServers(plane, 4);
        load.phase = "4 replicas";
        load.servedBy.clear();
        load.awaitServedBy(4);
        load.awaitMore(100);
        load.phase = "scaling to 2";
        scale(node, 2);
        awaitServers(plane, 2);
        load.phase = "2 replicas again";
        load.servedBy.clear();
        load.awaitMore(100);
        load.close();
        assertThat(load.failures).as("failed requests while scaling 2 -> 4 -> 2").isEmpty();
        assertThat(load.servedBy).hasSize(2);
      }
      assertThat(Files.getLastModifiedTime(lua)).as("the Lua action is not rewritten")
          .isEqualTo(luaWritten);
      assertThat(plane.runningConfig()).isEqualTo(Files.readString(
          plane.dir().resolve("haproxy.cfg")));
    } finally {
      node.close();
    }
    assertThat(haproxyProcesses).as("HAProxy stops with the node")
        .noneMatch(ProcessHandle::isAlive);
  }

  @Test
  void apiKeysAndTheClusterTokenHoldThroughHaproxyAsThroughTheIngress() throws Exception {
    Path keys = Files.createTempFile("sluice-keys", "");
    Files.writeString(keys, "client-key-1\n");
    try (SluiceNode node = TestNodes.local(TestNodes.app(1, 0, 1, 8), ConfigFactory.parseString(
        "sluice.haproxy.port = " + GUARDED_HAPROXY_PORT + "\n"
            + "sluice.ingress.api-keys = [client-key-2]\n"
            + "sluice.ingress.api-keys-file = \"" + keys + "\"\n"
            + "sluice.ingress.api-keys-reload-interval = 100ms\n"
            + "sluice.core.cluster-token = cluster-token-1"))) {
      HaproxyDataPlane plane = node.haproxy().orElseThrow();
      awaitServers(plane, 1);
      int ingress = node.ingressPort().orElseThrow();
      for (int port : List.of(ingress, GUARDED_HAPROXY_PORT)) {
        String via = port == ingress ? "the ingress" : "HAProxy";
        String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        HttpResponse<String> missing = TestNodes.post(port, CHAT, body);
        assertThat(missing.statusCode()).as(via).isEqualTo(401);
        assertThat(missing.headers().firstValue("www-authenticate")).as(via).hasValue("Bearer");
        assertThat(Sse.json(missing.body()).at("/error/message").asText()).as(via)
            .isEqualTo("Missing API key: send it as Authorization: Bearer <key>");
        for (String wrong : List.of("Bearer nope", "client-key-1", "Basic client-key-1",
            "Bearer client-key-3", "Bearer " + "client-key-1".toUpperCase())) {
          HttpResponse<String> refused = TestNodes.post(port, CHAT, body, "authorization", wrong);
          assertThat(refused.statusCode()).as("%s, %s", via, wrong).isEqualTo(401);
          assertThat(Sse.json(refused.body()).at("/error/code").asText()).as(via)
              .isEqualTo("invalid_api_key");
          assertThat(Sse.json(refused.body()).at("/error/message").asText()).as(via)
              .isEqualTo("Incorrect API key provided");
        }
        for (String key : List.of("Bearer client-key-2", "bearer  client-key-1")) {
          HttpResponse<String> served = TestNodes.post(port, CHAT, body, "authorization", key);
          assertThat(served.statusCode()).as("%s, %s: %s", via, key, served.body())
              .isEqualTo(200);
          assertThat(Sse.json(served.body()).at("/choices/0/message/content").asText())
              .as(via).isNotBlank();
        }
        assertThat(TestNodes.get(port, "/v1/models").statusCode()).as(via).isEqualTo(401);
        assertThat(TestNodes.get(port, "/-/healthz").statusCode()).as(via).isEqualTo(200);
      }
      String config = Files.readString(plane.dir().resolve("haproxy.cfg"));
      assertThat(config).as("only digests are written").doesNotContain("client-key-")
          .contains(java.util.HexFormat.of().formatHex(
              dev.sluice.core.http.Bearer.digest("client-key-1")));

      Files.writeString(keys, "client-key-3\n");  // rotated: key 1 out, key 3 in
      awaitKeys(List.of(ingress, GUARDED_HAPROXY_PORT), Map.of("Bearer client-key-3", 200,
          "Bearer client-key-1", 401, "Bearer client-key-2", 200));
      Files.writeString(keys, "# every key of the file revoked\n");
      awaitKeys(List.of(ingress, GUARDED_HAPROXY_PORT), Map.of("Bearer client-key-3", 401,
          "Bearer client-key-2", 200));
      String metrics = TestNodes.get(node.metricsPort().orElseThrow(), "/metrics").body();
      assertThat(metrics).as("the config's key is left").contains("sluice_ingress_api_keys 1.0")
          .containsPattern("sluice_ingress_api_keys_reloads_total\\{outcome=\"changed\"\\} [2-9]");
    } finally {
      Files.delete(keys);
    }
  }

  /** Waits until each port answers each key's request with its status. */
  private static void awaitKeys(List<Integer> ports, Map<String, Integer> statuses) {
    Await.untilOk(Duration.ofSeconds(30), "keys in effect: " + statuses, () -> {
      for (int port : ports) {
        for (Map.Entry<String, Integer> key : statuses.entrySet()) {
          if (TestNodes.post(port, CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":"
              + "\"hi\"}]}", "authorization", key.getKey()).statusCode() != key.getValue()) {
            return false;
          }
        }
      }
      return true;
    });
  }

  /**
   * On an ingress-only node, HAProxy asks the node's own router endpoint, which reaches the
   * router singleton wherever it runs: when the singletons' node leaves, requests through HAProxy
   * keep being served by the same replicas, none failed. (It used to need another node's router
   * address, and failed with that node.)
   */
  @Test
  void haproxyOnAnIngressNodeFollowsTheSingletonsWhenTheirNodeLeaves() throws Exception {
    Config overrides = TestNodes.overrides();
    SluiceNode first = SluiceNode.start(new NodeOptions(Set.of(Role.CONTROL), Optional.empty(),
        Optional.empty(), List.of(), Optional.of(TestNodes.appFile(TestNodes.app(2, 0, 2, 64))),
        overrides));
    List<SluiceNode> others = new ArrayList<>();
    try {
      List<String> seed = List.of("127.0.0.1:" + first.system().address().getPort().get());
      others.add(SluiceNode.start(new NodeOptions(Set.of(Role.CONTROL), Optional.empty(),
          Optional.empty(), seed, Optional.empty(), overrides)));
      others.add(SluiceNode.start(new NodeOptions(Set.of(Role.REPLICA), Optional.empty(),
          Optional.empty(), seed, Optional.empty(), overrides)));
      SluiceNode ingress = SluiceNode.start(new NodeOptions(Set.of(Role.INGRESS),
          Optional.empty(), Optional.empty(), seed, Optional.empty(), ConfigFactory.parseString(
              "sluice.haproxy.port = " + FOLLOWING_HAPROXY_PORT).withFallback(overrides)));
      others.add(ingress);
      assertThat(ingress.routerPort()).as("the ingress node's own router endpoint").isPresent();
      awaitServers(ingress.haproxy().orElseThrow(), 2);
      try (Load load = new Load(FOLLOWING_HAPROXY_PORT, 4)) {
        load.awaitServedBy(2);
        Set<String> replicas = Set.copyOf(load.servedBy.keySet());
        load.phase = "the singletons' node leaving";
        first.close();
        load.servedBy.clear();
        load.phase = "the singletons on the second control node";
        load.awaitMore(12);
        load.awaitServedBy(2);
        load.close();
        assertThat(load.failures).as("failed requests through HAProxy").isEmpty();
        assertThat(load.servedBy.keySet()).as("the same replicas, adopted")
            .isEqualTo(replicas);
      }
    } finally {
      for (int i = others.size() - 1; i >= 0; i--) {
        others.get(i).close();
      }
      first.close();
    }
  }

  /**
   * A node's stop drains HAProxy as it drains the ingress: a stream in flight finishes, and an
   * idle keep-alive connection is closed once it has (a soft stop alone kept it open, and the
   * node's stop waiting, until HAProxy's keep-alive timeout, 10 s).
   */
  @Test
  void stoppingTheNodeFinishesStreamsAndClosesIdleConnectionsAtOnce() throws Exception {
    SluiceNode node = TestNodes.local(TestNodes.app(1, 0, 20, 8),
        ConfigFactory.parseString("sluice.haproxy.port = " + STOPPED_HAPROXY_PORT));
    awaitServers(node.haproxy().orElseThrow(), 1);
    try (Socket idle = new Socket("127.0.0.1", STOPPED_HAPROXY_PORT);
        Socket streaming = new Socket("127.0.0.1", STOPPED_HAPROXY_PORT)) {
      idle.setSoTimeout(15_000);
      streaming.setSoTimeout(15_000);
      idle.getOutputStream().write(RawClient.bytes(
          "GET /-/healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
      InputStream idleIn = new BufferedInputStream(idle.getInputStream());
      assertThat(RawHttp.response(idleIn).status()).isEqualTo(200);
      String chat = "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
          + "\"max_tokens\":40,\"stream\":true}";
      streaming.getOutputStream().write(RawClient.bytes("POST " + CHAT + " HTTP/1.1\r\nHost: x"
          + "\r\nContent-Type: application/json\r\nContent-Length: " + chat.length()
          + "\r\n\r\n" + chat));
      InputStream streamIn = new BufferedInputStream(streaming.getInputStream());
      assertThat(RawHttp.line(streamIn)).startsWith("HTTP/1.1 200");

      Thread stop = new Thread(node::close, "node-stop");
      stop.start();

      // Well before HAProxy would close it for its idleness (timeout http-request, 10 s).
      idle.setSoTimeout(6_000);
      assertThat(idleIn.read()).as("the idle connection, closed at once").isEqualTo(-1);
      assertThat(RawHttp.body(streamIn, RawHttp.fields(streamIn)))
          .as("the stream in flight").endsWith("data: [DONE]\n\n");
      stop.join(15_000);
      assertThat(stop.isAlive()).as("the node still stopping").isFalse();
    } finally {
      node.close();
    }
  }

  /**
   * A client's kept-alive connection stays with HAProxy's old worker after a reload, until its
   * next answer. When a rolling update replaced every replica, that worker knows none of the
   * router's picks: it sends the request to the address the router gave (it got 503
   * {@code unknown_replica_id} before).
   */
  @Test
  void aConnectionOnTheOldWorkerAfterARollingUpdateIsServed() throws Exception {
    String app = TestNodes.app(1, 0, 1, 8);
    SluiceNode node = TestNodes.local(app, ConfigFactory.parseString(
        "sluice.haproxy.port = " + ROLLED_HAPROXY_PORT));
    try (Socket client = new Socket("127.0.0.1", ROLLED_HAPROXY_PORT)) {
      HaproxyDataPlane plane = node.haproxy().orElseThrow();
      client.setSoTimeout(30_000);
      InputStream in = new BufferedInputStream(client.getInputStream());
      String chat = "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
      byte[] request = RawClient.bytes("POST " + CHAT + " HTTP/1.1\r\nHost: x\r\n"
          + "Content-Type: application/json\r\nContent-Length: " + chat.length() + "\r\n\r\n"
          + chat);
      client.getOutputStream().write(request);
      RawHttp.Response first = RawHttp.response(in);
      assertThat(first.status()).isEqualTo(200);
      String old = first.header("x-sluice-served-by");

      HttpResponse<String> put = TestNodes.api(node.apiPort().orElseThrow(), "PUT",
          "/api/applications", app.replace("default_max_tokens: 16", "default_max_tokens: 17"),
          "application/yaml");
      assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
      Await.untilOk(Duration.ofSeconds(30), "HAProxy serves only the new replica", () ->
          plane.servingReplicas().size() == 1 && !plane.servingReplicas().contains(old));

      client.getOutputStream().write(request);
      RawHttp.Response second = RawHttp.response(in);
      assertThat(second.status()).as(second.headers() + second.body()).isEqualTo(200);
      assertThat(second.header("x-sluice-served-by"))
          .isEqualTo(plane.servingReplicas().iterator().next());
    } finally {
      node.close();
    }
  }

  /**
   * {@code sluice.haproxy.metrics-port} serves HAProxy's own Prometheus exporter: the requests
   * through HAProxy, by status class, for the replicas' backend and for each replica's server.
   */
  @Test
  void haproxysOwnMetricsCountTheRequestsThroughIt() throws Exception {
    SluiceNode node = TestNodes.local(TestNodes.app(1, 0, 1, 8), ConfigFactory.parseString(
        "sluice.haproxy { port = " + METERED_HAPROXY_PORT + ", metrics-port = "
            + HAPROXY_METRICS_PORT + " }"));
    try {
      // No wait for HAProxy's servers: the node is ready (ClusterReadiness, what `sluice local`
      // waits for before it prints its URLs) only once HAProxy has them, and the first request
      // through it is served.
      HaproxyDataPlane plane = node.haproxy().orElseThrow();
      String replica = node.ingressView().all().iterator().next().replicas().get(0).id()
          .toString();
      for (int i = 0; i < 5; i++) {
        assertThat(TestNodes.post(METERED_HAPROXY_PORT, CHAT,
            "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":2}")
            .statusCode()).isEqualTo(200);
      }

      assertThat(plane.metricsUrl())
          .hasValue("http://127.0.0.1:" + HAPROXY_METRICS_PORT + "/metrics");
      HttpResponse<String> scrape = TestNodes.get(HAPROXY_METRICS_PORT, "/metrics");
      assertThat(scrape.statusCode()).isEqualTo(200);
      assertThat(sample(scrape.body(), "haproxy_backend_http_responses_total",
          "proxy=\"sluice_replicas\"", "code=\"2xx\"")).isEqualTo(5);
      assertThat(sample(scrape.body(), "haproxy_server_http_responses_total",
          "server=\"" + HaproxyConfig.serverName(replica) + "\"", "code=\"2xx\"")).isEqualTo(5);
      assertThat(TestNodes.get(HAPROXY_METRICS_PORT, "/").statusCode()).isEqualTo(404);
      // The dashboard's totals see requests through HAProxy on the replicas, none at the ingress.
      try (Load load = new Load(METERED_HAPROXY_PORT, 1)) {
        JsonNode totals = DashboardEvents.awaitTotals(node.apiPort().orElseThrow(),
            Duration.ofSeconds(20), seen -> seen.path("replica_requests_per_s").asDouble() > 0);
        assertThat(totals.path("requests_per_s").asDouble()).isZero();
        assertThat(totals.path("replica_ttft_p50_ms").isNumber()).isTrue();
        load.close();
        assertThat(load.failures).isEmpty();
      }
    } finally {
      node.close();
    }
  }

  private static HttpResponse<String> send(int port, String method, String path)
      throws Exception {
    return TestNodes.HTTP.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
            "http://127.0.0.1:" + port + path)).method(method,
            java.net.http.HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The value of the one sample of {@code name} whose labels include every one of {@code has}. */
  private static double sample(String exposition, String name, String... has) {
    List<String> lines = exposition.lines().filter(line -> line.startsWith(name + "{")
        && java.util.Arrays.stream(has).allMatch(line::contains)).toList();
    assertThat(lines).as("samples of %s with %s", name, List.of(has)).hasSize(1);
    String line = lines.get(0);
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }

  @Test
  void killingTheNodeStopsItsHaproxy() throws Exception {
    try (NodeProcess node = NodeProcess.start(NodeProcesses.JVM, SluiceCli.class, List.of(
            "node", "--roles", "control,ingress,replica", "--host", "127.0.0.1",
            "--port", String.valueOf(KILLED_REMOTING), "--ingress-port", "0", "--api-port", "-1",
            "--router-port", "0", "--haproxy-port", String.valueOf(KILLED_HAPROXY_PORT)),
        Map.of("SLUICE_REPLICA_PORT_RANGE", "0"))) {
      node.awaitOutput("HAProxy data plane: http://127.0.0.1:" + KILLED_HAPROXY_PORT,
          Duration.ofSeconds(60));
      List<ProcessHandle> haproxy = node.process.descendants().filter(process ->
          process.info().command().orElse("").endsWith("haproxy")).toList();
      assertThat(haproxy).isNotEmpty();
      node.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      while (haproxy.stream().anyMatch(ProcessHandle::isAlive)) {
        assertThat(System.nanoTime()).as("HAProxy outlived its killed node: %s", haproxy)
            .isLessThan(end);
        TimeUnit.MILLISECONDS.sleep(50);
      }
    }
  }

  @Test
  void aMissingHaproxyIsAClearErrorAndTheNodeDoesNotStart() {
    assertThatThrownBy(() -> TestNodes.local(TestNodes.app(1, 0, 1, 8), ConfigFactory.parseString(
            "sluice.haproxy { port = 19189, binary = /nonexistent/haproxy }")))
        .hasMessageContaining("No '/nonexistent/haproxy' found")
        .hasMessageContaining("install HAProxy 2.6 or newer with Lua");
  }
}
