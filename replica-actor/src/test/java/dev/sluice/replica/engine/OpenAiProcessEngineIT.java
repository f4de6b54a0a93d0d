package dev.sluice.replica.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.config.AutoscalingConfig;
import dev.sluice.core.config.DeploymentConfig;
import dev.sluice.core.config.EngineConfig;
import dev.sluice.core.config.LlmConfig;
import dev.sluice.core.config.RequestRouterConfig;
import dev.sluice.core.testing.Await;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine with a real child process: {@link FakeOpenAiServer} in a JVM of its own. */
class OpenAiProcessEngineIT {

  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final ActorTestKit testKit = ActorTestKit.create(ConfigFactory
      .parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final List<OpenAiProcessEngine> engines = new ArrayList<>();

  @TempDir
  Path dir;

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @AfterEach
  void stopAll() throws Exception {
    for (OpenAiProcessEngine engine : engines) {
      engine.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  /** The fake server as the command, with {port} and {model} for the engine to fill in. */
  private static List<String> fake(String... options) throws URISyntaxException {
    String classes = Path.of(FakeOpenAiServer.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI()).toString();
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx32m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classes,
        FakeOpenAiServer.class.getName(), "--port", "{port}", "--model", "{model}"));
    command.addAll(List.of(options));
    return command;
  }

  private OpenAiProcessEngine engine(EngineConfig config) {
    OpenAiProcessEngine engine =
        new OpenAiProcessEngine(config, "fake-model", "llm#fake#abcd1234", Duration.ofSeconds(5));
    engines.add(engine);
    return engine;
  }

  private OpenAiProcessEngine engine(String... options) throws URISyntaxException {
    return engine(EngineConfig.openAiProcess(fake(options), EngineConfig.AUTO_PORT)
        .withProcess("/health", Map.of("FAKE_ENGINE_GREETING", "hello from the fake"), 60,
            "/metrics"));
  }

  private static int health(int port) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
        .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Test
  void startCompletesOnlyOnceTheHealthPathAnswers200() throws Exception {
    OpenAiProcessEngine engine = engine("--health-delay-ms", "2000");

    CompletableFuture<?> started = engine.start().toCompletableFuture();

    Await.untilOk(DEADLINE, "the server answers 503 while not ready",
        () -> health(engine.port()) == 503);
    assertThat(started).as("not started while /health is 503").isNotDone();
    started.get(30, TimeUnit.SECONDS);
    assertThat(health(engine.port())).isEqualTo(200);
    assertThat(engine.healthy().toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(engine.command()).contains(Integer.toString(engine.port()), "fake-model")
        .doesNotContain("{port}", "{model}");
    assertThat(engine.start().toCompletableFuture()).as("start again: the same outcome")
        .isCompleted();
  }

  @Test
  void startFailsClearlyWhenTheServerIsNotHealthyInTime() throws Exception {
    OpenAiProcessEngine engine = engine(EngineConfig.openAiProcess(
            fake("--health-delay-ms", "600000"), EngineConfig.AUTO_PORT)
        .withProcess("/health", Map.of("FAKE_ENGINE_GREETING", "still loading"), 2, "/metrics"));

    assertThatThrownBy(() -> engine.start().toCompletableFuture().get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("did not answer 200 on http://127.0.0.1:" + engine.port()
            + "/health within startup_timeout_s 2 s")
        .hasMessageContaining("still loading");
    assertThat(engine.exited().toCompletableFuture().get(30, TimeUnit.SECONDS))
        .as("stopped by SIGTERM").isEqualTo(143);
  }

  /** A server of a deployment with {@code numGpus} on a node whose GPUs are {@code pool}. */
  private OpenAiProcessEngine gpuEngine(GpuPool pool, int numGpus, String replica)
      throws URISyntaxException {
    OpenAiProcessEngine engine = new OpenAiProcessEngine(EngineConfig.openAiProcess(
            fake("--gpus-file", dir.resolve(replica + ".gpus").toString()),
            EngineConfig.AUTO_PORT).withGpus(numGpus), "fake-model", "llm#" + replica,
        Duration.ofSeconds(5), "127.0.0.1", dev.sluice.core.http.ClusterToken.NONE, pool);
    engines.add(engine);
    return engine;
  }

  @Test
  void eachServerGetsGpusOfItsOwnAndGivesThemBackOnceItHasExited() throws Exception {
    GpuPool pool = new GpuPool(List.of("0", "1", "GPU-5e1f"));
    OpenAiProcessEngine a = gpuEngine(pool, 2, "a");
    OpenAiProcessEngine b = gpuEngine(pool, 1, "b");
    a.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
    b.start().toCompletableFuture().get(30, TimeUnit.SECONDS);

    assertThat(Files.readString(dir.resolve("a.gpus"))).isEqualTo("0,1");
    assertThat(Files.readString(dir.resolve("b.gpus"))).isEqualTo("GPU-5e1f");

    OpenAiProcessEngine refused = gpuEngine(pool, 1, "c");
    assertThatThrownBy(() -> refused.start().toCompletableFuture().get(30, TimeUnit.SECONDS))
        .hasMessageContaining("needs 1 GPU (num_gpus), and 0 of this node's 3 "
            + "(sluice.replica.gpus: 0,1,GPU-5e1f) are free; held by llm#a, llm#b");
    assertThat(refused.pid()).as("nothing launched").isEmpty();
    assertThat(dir.resolve("c.gpus")).doesNotExist();

    b.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
    b.exited().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(pool.free()).as("given back by the time its exit is known")
        .containsExactly("GPU-5e1f");
    OpenAiProcessEngine c = gpuEngine(pool, 1, "c");
    c.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(Files.readString(dir.resolve("c.gpus"))).isEqualTo("GPU-5e1f");
  }

  @Test
  void aServerWithoutGpusIsGivenNoneOfThePool() throws Exception {
    OpenAiProcessEngine engine = gpuEngine(new GpuPool(List.of("0")), 0, "cpu");
    engine.start().toCompletableFuture().get(30, TimeUnit.SECONDS);

    String inherited = System.getenv("CUDA_VISIBLE_DEVICES");  // the node's own, if it has one
    assertThat(Files.readString(dir.resolve("cpu.gpus")))
        .isEqualTo(inherited == null ? "(unset)" : inherited);
  }

  @Test
  void startFailsWithTheExitCodeAndLastWordsOfAServerThatExits() throws Exception {
    OpenAiProcessEngine engine = engine("--exit-after-ms", "200", "--exit-code", "3");

    assertThatThrownBy(() -> engine.start().toCompletableFuture().get(30, TimeUnit.SECONDS))
        .hasMessageContaining("exited with code 3 before it answered 200")
        .hasMessageContaining("hello from the fake")
        .hasMessageContaining("fatal: no GPU found");
    assertThat(engine.exited().toCompletableFuture().get(30, TimeUnit.SECONDS)).isEqualTo(3);
    assertThat(engine.healthy().toCompletableFuture().get()).isFalse();
  }

  @Test
  void statsFollowTheServedMetrics() throws Exception {
    Path metrics = dir.resolve("metrics.txt");
    Files.writeString(metrics, """
        # TYPE vllm:num_requests_running gauge
        vllm:num_requests_running{engine="0",model_name="fake-model"} 3.0
        vllm:num_requests_waiting{engine="0",model_name="fake-model"} 1.0
        vllm:gpu_cache_usage_perc{engine="0",model_name="fake-model"} 0.25
        vllm:generation_tokens_total{engine="0",model_name="fake-model"} 42.0
        """);
    OpenAiProcessEngine engine = engine("--metrics-file", metrics.toString());
    engine.start().toCompletableFuture().get(30, TimeUnit.SECONDS);

    Await.until(DEADLINE, "the first scrape", () -> engine.stats().running() == 3);
    assertThat(engine.stats()).isEqualTo(new EngineStats(3, 1, 42, 0, 0, 0.25));

    Files.writeString(metrics, """
        vllm:num_requests_running{engine="0",model_name="fake-model"} 5.0
        vllm:num_requests_waiting{engine="0",model_name="fake-model"} 0.0
        vllm:kv_cache_usage_perc{engine="0",model_name="fake-model"} 0.5
        vllm:prefix_cache_queries_total{engine="0",model_name="fake-model"} 100.0
        vllm:prefix_cache_hits_total{engine="0",model_name="fake-model"} 40.0
        an odd line
        """);
    Await.until(DEADLINE, "the next scrape", () -> engine.stats().running() == 5);
    assertThat(engine.stats()).isEqualTo(new EngineStats(5, 0, 0, 0, 0.4, 0.5));
  }

  @Test
  void theClusterTokenReachesTheServerThroughItsEnvAndIsSentWithEveryScrape() throws Exception {
    Path metrics = dir.resolve("metrics-token.txt");
    Files.writeString(metrics, "vllm:num_requests_running{model_name=\"m\"} 2\n");
    EngineConfig config = EngineConfig.openAiProcess(fake("--metrics-file", metrics.toString(),
            "--api-key-env", "FAKE_API_KEY"), EngineConfig.AUTO_PORT)
        .withProcess("/health", Map.of("FAKE_API_KEY", "{cluster_token}"), 60, "/metrics");
    OpenAiProcessEngine engine = new OpenAiProcessEngine(config, "fake-model",
        "llm#fake#token000", Duration.ofSeconds(5), "127.0.0.1",
        dev.sluice.core.http.ClusterToken.of("s3cret-token"));
    engines.add(engine);
    engine.start().toCompletableFuture().get(30, TimeUnit.SECONDS);

    Await.untilOk(DEADLINE, "the scrape admitted (2 running)", () ->
        engine.stats().running() == 2);
    assertThat(engine.command()).as("never on the command line")
        .noneMatch(arg -> arg.contains("s3cret"));
  }

  @Test
  void aClusterTokenPlaceholderWithoutATokenFailsTheStartClearly() throws Exception {
    OpenAiProcessEngine engine = engine(EngineConfig.openAiProcess(fake(), EngineConfig.AUTO_PORT)
        .withProcess("/health", Map.of("FAKE_API_KEY", "{cluster_token}"), 60, "/metrics"));

    assertThat(engine.start().toCompletableFuture())
        .failsWithin(DEADLINE).withThrowableThat()
        .withMessageContaining("engine_config.env.FAKE_API_KEY")
        .withMessageContaining("no cluster token is set");
  }

  @Test
  void statsAreZerosWithoutMetrics() throws Exception {
    OpenAiProcessEngine engine = engine();
    engine.start().toCompletableFuture().get(30, TimeUnit.SECONDS);

    Await.until(DEADLINE, "a scrape", () -> engine.stats() != null && engine.scrapes() > 0);

    assertThat(engine.stats()).isEqualTo(new EngineStats(0, 0, 0, 0, 0, 0));
  }

  @Test
  void aCrashCompletesExitedAndMakesTheEngineUnhealthy() throws Exception {
    OpenAiProcessEngine engine = engine();
    engine.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
    long pid = engine.pid().orElseThrow();

    ProcessHandle.of(pid).orElseThrow().destroyForcibly();

    assertThat(engine.exited().toCompletableFuture().get(30, TimeUnit.SECONDS))
        .as("killed by SIGKILL").isEqualTo(137);
    assertThat(engine.healthy().toCompletableFuture().get(10, TimeUnit.SECONDS)).isFalse();
  }

  @Test
  void stopEndsTheServer() throws Exception {
    OpenAiProcessEngine engine = engine();
    engine.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
    long pid = engine.pid().orElseThrow();

    engine.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);

    assertThat(alive(pid)).isFalse();
    assertThat(engine.exited().toCompletableFuture().get(1, TimeUnit.SECONDS)).isEqualTo(143);
    assertThat(engine.healthy().toCompletableFuture().get()).isFalse();
    assertThat(engine.stop().toCompletableFuture()).as("idempotent").isCompleted();
  }

  @Test
  void stopBeforeStartMakesStartFail() {
    OpenAiProcessEngine engine = engine(EngineConfig.openAiProcess(List.of("true", "{port}"),
        EngineConfig.AUTO_PORT));

    engine.stop();

    assertThatThrownBy(() -> engine.start().toCompletableFuture().get(10, TimeUnit.SECONDS))
        .hasMessageContaining("stopped before it started");
  }

  @Test
  void generateStreamsTheTextDeltasOfV1Completions() throws Exception {
    OpenAiProcessEngine engine = engine();
    engine.start().toCompletableFuture().get(30, TimeUnit.SECONDS);

    List<String> tokens = engine.generate(new GenerationRequest("r1", "hello", 4))
        .runWith(Sink.seq(), testKit.system()).toCompletableFuture().get(30, TimeUnit.SECONDS);

    assertThat(tokens).containsExactly("t0", " t1", " t2", " t3");
    assertThatThrownBy(() -> engine.generate(new GenerationRequest("r2", "fail", 4))
        .runWith(Sink.seq(), testKit.system()).toCompletableFuture().get(30, TimeUnit.SECONDS))
        .hasMessageContaining("the engine answered 400 on /v1/completions")
        .hasMessageContaining("bad prompt");
  }

  @Test
  void enginesCreatesItWithTheDeploymentsGracefulShutdownTimeout() throws Exception {
    EngineConfig config = EngineConfig.openAiProcess(fake(), 27150);
    DeploymentConfig deployment = new DeploymentConfig("", 1, 8, 7, 10, 30,
        new RequestRouterConfig("round-robin", Map.of()), AutoscalingConfig.OFF);

    Engine engine = Engines.create(new LlmConfig("fake-model", config, deployment), "r");

    assertThat(engine).isInstanceOf(OpenAiProcessEngine.class);
    assertThat(((OpenAiProcessEngine) engine).port()).isEqualTo(27150);
    assertThat(((OpenAiProcessEngine) engine).stopGrace()).isEqualTo(Duration.ofSeconds(7));
    assertThat(((OpenAiProcessEngine) engine).command()).contains("27150", "fake-model");
    assertThatThrownBy(() -> Engines.create(config))
        .hasMessageContaining("Engines.create(LlmConfig, String)");
  }
}
