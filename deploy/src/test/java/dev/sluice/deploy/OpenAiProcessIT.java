package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.BodyProbes;
import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.Sse;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A replica whose engine is {@code sluice engine-sim} run as a real child process
 * ({@code openai-process}): completions through the ingress go straight to the engine's port,
 * load reports follow the engine's vLLM-format metrics, a crash is replaced, a drain stops the
 * child, and a node killed with {@code kill -9} leaves no child behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OpenAiProcessIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int HAPROXY_PORT = 19201;
  private static final long LIMIT = 1 << 20;

  private SluiceNode node;
  private int ingress;
  private int api;

  /** An app whose one replica runs the simulated engine as a separate server process. */
  static String app(int replicas, int itlMs) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = List.of(java, "-Xmx128m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        SluiceCli.class.getName(), "engine-sim", "--host", "{host}", "--port", "{port}",
        "--model", "{model}", "--ttft-ms", "0", "--itl-ms", String.valueOf(itlMs),
        "--max-tokens", "8");
    StringBuilder yaml = new StringBuilder("""
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: ext}
                engine_config:
                  type: openai-process
                  port: auto
                  health_path: /-/healthz
                  metrics_path: /metrics
                  startup_timeout_s: 60
                  command:
        """);
    command.forEach(arg -> yaml.append("              - '").append(arg).append("'\n"));
    yaml.append("""
                deployment_config:
                  num_replicas: %d
                  graceful_shutdown_timeout_s: 3
                  health_check_period_s: 1
        """.formatted(replicas));
    return yaml.toString();
  }

  @BeforeAll
  void start() throws Exception {
    // The limit below the engine's own (8 MiB): a body between the two reaches the engine only
    // if nothing in Sluice stops it.
    node = TestNodes.local(app(1, 100), ConfigFactory.parseString(
        "sluice.haproxy.port = " + HAPROXY_PORT + "\nsluice.ingress.max-request-bytes = "
            + LIMIT + "\nsluice.replica.max-request-bytes = " + LIMIT));
    ingress = node.ingressPort().orElseThrow();
    api = node.apiPort().orElseThrow();
  }

  @AfterAll
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  private ReplicaInfo theReplica() {
    ReplicaSet set = node.ingressView().all().iterator().next();
    assertThat(set.replicas()).hasSize(1);
    return set.replicas().get(0);
  }

  /** The engine processes this JVM runs (children of their supervising shells). */
  static List<ProcessHandle> engines(ProcessHandle parent) {
    return parent.descendants().filter(p -> {
      // ProcessHandle.Info drops long command lines: read the kernel's copy (Linux).
      try {
        List<String> args = List.of(java.nio.file.Files.readString(
            Path.of("/proc", String.valueOf(p.pid()), "cmdline")).split("\0"));
        return args.contains("engine-sim") && !args.get(0).endsWith("sh");
      } catch (java.io.IOException | RuntimeException gone) {
        return false;
      }
    }).toList();
  }

  private static boolean running(NodeProcess node) {
    try {
      return node.output().contains("RUNNING, endpoint");
    } catch (java.io.IOException e) {
      return false;
    }
  }

  private static String chat(boolean stream) {
    return "{\"model\":\"ext\",\"stream\":" + stream
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
  }

  @Test
  @Order(1)
  void completionsGoStraightToTheEngineStreamedAndWhole() throws Exception {
    ReplicaInfo replica = theReplica();
    assertThat(replica.dataPort()).as("the engine's own port").isPositive()
        .isNotEqualTo(replica.port());
    assertThat(engines(ProcessHandle.current())).hasSize(1);
    long streamsBefore = engineStreams(replica.dataPort());

    HttpResponse<String> streamed = TestNodes.post(ingress, "/v1/chat/completions", chat(true));
    assertThat(streamed.statusCode()).as(streamed.body()).isEqualTo(200);
    assertThat(streamed.body()).contains("data: [DONE]").contains("\"finish_reason\"");
    assertThat(streamed.headers().firstValue("x-sluice-served-by"))
        .hasValue(replica.id().toString());
    HttpResponse<String> whole = TestNodes.post(ingress, "/v1/chat/completions", chat(false));
    assertThat(whole.statusCode()).as(whole.body()).isEqualTo(200);
    assertThat(JSON.readTree(whole.body()).path("model").asText()).isEqualTo("ext");
    assertThat(whole.headers().firstValue("x-sluice-served-by"))
        .hasValue(replica.id().toString());
    assertThat(engineStreams(replica.dataPort())).as("the engine served the stream")
        .isEqualTo(streamsBefore + 1);

    // Through HAProxy too: to the engine's port, not through the replica's endpoint (whose own
    // stream count would then grow), with x-sluice-served-by added as the splice adds it.
    long relayedBefore = engineStreams(replica.port());
    HttpResponse<String> viaHaproxy = TestNodes.post(HAPROXY_PORT, "/v1/chat/completions",
        chat(true));
    assertThat(viaHaproxy.statusCode()).as(viaHaproxy.body()).isEqualTo(200);
    assertThat(viaHaproxy.body()).contains("data: [DONE]");
    assertThat(viaHaproxy.headers().firstValue("x-sluice-served-by"))
        .hasValue(replica.id().toString());
    assertThat(engineStreams(replica.dataPort())).isEqualTo(streamsBefore + 2);
    assertThat(engineStreams(replica.port())).as("streams the replica's endpoint relayed")
        .isEqualTo(relayedBefore);
    // What `sluice haproxy render` reads to do the same.
    assertThat(TestNodes.status(node).findValuesAsText("engine_endpoint"))
        .containsExactly("http://" + replica.host() + ":" + replica.dataPort());
  }

  /**
   * The replica's time to first token comes from the engine's own histogram: the engine's
   * answers went around the replica's endpoint (the splice, HAProxy), and the dashboard's
   * replica series count them all the same.
   */
  @Test
  @Order(2)
  void theReplicasFirstTokensAreTheEnginesOwn() throws Exception {
    ReplicaInfo replica = theReplica();
    for (int port : List.of(ingress, HAPROXY_PORT, ingress)) {
      HttpResponse<String> served = TestNodes.post(port, "/v1/chat/completions", chat(true));
      assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
    }
    double engine = sum(TestNodes.get(replica.dataPort(), "/metrics").body(),
        "vllm:time_to_first_token_seconds_count{");
    assertThat(engine).as("the engine's own count").isGreaterThanOrEqualTo(3);
    Await.untilOk(Duration.ofSeconds(10), "the replica's count reaches the engine's " + engine,
        () -> replicaTtftCount() == engine);
    assertThat(sum(TestNodes.get(node.metricsPort().orElseThrow(), "/metrics").body(),
        "sluice_replica_ttft_seconds_sum{")).isPositive();
  }

  /**
   * A body over the limit gets the replica's 413 through HAProxy as through the splice, read on
   * first. HAProxy sent it to the engine's own port, which took it (up to its own limit, or
   * without any: vLLM's): a Content-Length over the limit now goes to the replica's endpoint,
   * and a chunked body to the node's ingress.
   */
  @Test
  @Order(2)
  void bodiesOverTheLimitGetTheReplicas413ThroughHaproxyAsThroughTheSplice() throws Exception {
    for (int port : List.of(HAPROXY_PORT, ingress)) {
      RawHttp.Response declared = BodyProbes.post(port, "/v1/chat/completions", LIMIT + 1,
          false);
      assertThat(declared).as("port %d", port).isNotNull();
      assertThat(declared.status()).as("port %d", port).isEqualTo(413);
      assertThat(Sse.json(declared.body()).at("/error/message").asText()).as("port %d", port)
          .isEqualTo("The request body is " + (LIMIT + 1) + " bytes; the limit is " + LIMIT);
      RawHttp.Response chunked = BodyProbes.post(port, "/v1/chat/completions", LIMIT + 1, true);
      assertThat(chunked).as("port %d", port).isNotNull();
      assertThat(chunked.status()).as("port %d", port).isEqualTo(413);
      assertThat(Sse.json(chunked.body()).at("/error/message").asText()).as("port %d", port)
          .isEqualTo("The request body is over the limit of " + LIMIT + " bytes");
    }
    HttpResponse<String> small = TestNodes.post(HAPROXY_PORT, "/v1/chat/completions",
        chat(false));
    assertThat(small.statusCode()).as(small.body()).isEqualTo(200);
  }

  /**
   * A body in a content coding gets the ingress's 415 through HAProxy too: the replica's
   * endpoint answers it, where the engine would have tried to read gzip as JSON.
   */
  @Test
  @Order(2)
  void aCompressedBodyGetsThe415ThroughHaproxyAsThroughTheSplice() throws Exception {
    java.io.ByteArrayOutputStream zipped = new java.io.ByteArrayOutputStream();
    try (var gzip = new java.util.zip.GZIPOutputStream(zipped)) {
      gzip.write(chat(false).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    ReplicaInfo replica = theReplica();
    long engineBefore = requests(replica.dataPort());
    long endpointBefore = requests(replica.port());
    for (int port : List.of(HAPROXY_PORT, ingress)) {
      for (List<String> codings : List.of(List.of("gzip"), List.of("identity", "gzip"))) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + port + "/v1/chat/completions"))
            .POST(HttpRequest.BodyPublishers.ofByteArray(zipped.toByteArray()))
            .header("content-type", "application/json");
        codings.forEach(coding -> request.header("content-encoding", coding));
        HttpResponse<String> refused = TestNodes.HTTP.send(request.build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).as("port %d, %s: %s", port, codings, refused.body())
            .isEqualTo(415);
        assertThat(refused.headers().firstValue("accept-encoding")).hasValue("identity");
        assertThat(Sse.json(refused.body()).at("/error/message").asText())
            .isEqualTo("Content-Encoding: gzip (expected: identity; send the body uncompressed)");
      }
    }
    // Refused by the replica's endpoint (HAProxy's two), never sent to the engine.
    assertThat(requests(replica.dataPort())).as("the engine's requests").isEqualTo(engineBefore);
    assertThat(requests(replica.port())).isEqualTo(endpointBefore + 2);
  }

  /** Requests a Sluice HTTP endpoint (a replica's, or engine-sim's) has taken, probes aside. */
  private static long requests(int port) throws Exception {
    return JSON.readTree(TestNodes.get(port, "/-/stats").body()).path("requests").asLong();
  }

  /** The replica's count of first tokens. */
  private double replicaTtftCount() throws Exception {
    return sum(TestNodes.get(node.metricsPort().orElseThrow(), "/metrics").body(),
        "sluice_replica_ttft_seconds_count{");
  }

  private static double sum(String metrics, String prefix) {
    return metrics.lines().filter(line -> line.startsWith(prefix))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .sum();
  }

  private static long engineStreams(int port) throws Exception {
    return JSON.readTree(TestNodes.get(port, "/-/stats").body()).path("streams").asLong();
  }

  @Test
  @Order(2)
  void loadReportsFollowTheEnginesMetrics() throws Exception {
    ReplicaInfo replica = theReplica();
    // Streams sent to the engine itself: neither the router nor the replica sees them; only the
    // engine's vllm:num_requests_running does.
    List<CompletableFuture<HttpResponse<String>>> open = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      open.add(TestNodes.HTTP.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
              + replica.dataPort() + "/v1/completions"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"ext\",\"prompt\":\"p" + i
              + "\",\"max_tokens\":60,\"stream\":true}"))
          .header("content-type", "application/json").build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    Await.untilOk(Duration.ofSeconds(10), "the replica reports the engine's 3 running", () ->
        ongoing() == 3);
    for (CompletableFuture<HttpResponse<String>> each : open) {
      assertThat(each.get().statusCode()).isEqualTo(200);
    }
    Await.untilOk(Duration.ofSeconds(10), "and then 0", () -> ongoing() == 0);
  }

  private int ongoing() throws Exception {
    JsonNode deployment = TestNodes.deployment(node, "llm", "ext");
    return deployment.path("replicas").get(0).path("ongoing").asInt(-1);
  }

  @Test
  @Order(3)
  void aCrashedEngineIsReplaced() throws Exception {
    String before = theReplica().id().toString();
    List<ProcessHandle> engines = engines(ProcessHandle.current());
    assertThat(engines).hasSize(1);
    engines.get(0).destroyForcibly();

    Await.untilOk(Duration.ofSeconds(60), "a new replica with a new engine, RUNNING", () -> {
      Optional<ReplicaSet> set = node.ingressView().all().stream().findFirst();
      return set.isPresent() && set.get().replicas().size() == 1
          && !set.get().replicas().get(0).id().toString().equals(before)
          && engines(ProcessHandle.current()).size() == 1;
    });
    assertThat(engines(ProcessHandle.current()).get(0).pid()).isNotEqualTo(engines.get(0).pid());
    HttpResponse<String> served = TestNodes.post(ingress, "/v1/chat/completions", chat(false));
    assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
  }

  @Test
  @Order(4)
  void drainingTheReplicaStopsItsEngine() throws Exception {
    List<ProcessHandle> engines = engines(ProcessHandle.current());
    assertThat(engines).hasSize(1);
    assertThat(TestNodes.api(api, "PATCH", "/api/applications/llm/deployments/ext",
        "{\"num_replicas\": 0}", "application/json").statusCode()).isEqualTo(200);

    Await.untilOk(Duration.ofSeconds(30), "the engine process gone", () ->
        !engines.get(0).isAlive());
    assertThat(engines(ProcessHandle.current())).isEmpty();
  }

  /**
   * Also: with the logging the jar ships ({@code logback.xml}, not the tests' own), the engine's
   * output reaches the node's log, prefixed with its replica id.
   */
  @Test
  @Order(5)
  void aNodeKilledWithKill9LeavesNoEngineBehind() throws Exception {
    Path config = TestNodes.appFile(app(1, 5));
    List<String> jvm = new ArrayList<>(NodeProcesses.JVM);
    jvm.add("-Dlogback.configurationFile=" + SluiceCli.class.getResource("/logback.xml"));
    NodeProcess other = NodeProcess.start(jvm, SluiceCli.class, List.of("local",
            "--config", config.toString(), "--port", "27311", "--api-port", "27312",
            "--remoting-port", "27313", "--router-port", "27314"),
        java.util.Map.of("SLUICE_REPLICA_PORT_RANGE", "27320-27329"));
    try {
      List<ProcessHandle> engines = NodeProcesses.await("the node's engine running",
          Duration.ofSeconds(90), () -> {
            List<ProcessHandle> found = engines(other.process.toHandle());
            return found.size() == 1 && running(other) ? Optional.of(found) : Optional.empty();
          }, other);
      java.util.regex.Pattern engineLine = java.util.regex.Pattern.compile(
          "\\[llm#ext#[a-z0-9]+\\] Simulated engine serving ext at http://");
      Await.untilOk(Duration.ofSeconds(10), "the engine's output in the node's log",
          () -> engineLine.matcher(other.output()).find());
      other.process.destroyForcibly();  // SIGKILL: no shutdown hook runs
      other.process.waitFor();

      Await.untilOk(Duration.ofSeconds(15), "the engine gone after its node died", () ->
          !engines.get(0).isAlive());
    } finally {
      other.close();
    }
  }
}
