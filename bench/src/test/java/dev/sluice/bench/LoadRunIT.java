package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.config.EngineConfig;
import dev.sluice.replica.engine.SimulatedEngine;
import dev.sluice.replica.http.ReplicaEndpointSettings;
import dev.sluice.replica.http.ReplicaHttpHandler;
import dev.sluice.replica.http.ReplicaServer;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The load generator's own correctness, against servers whose behaviour is known. */
class LoadRunIT {

  private static final ActorTestKit testKit = ActorTestKit.create(
      ConfigFactory.parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
  private static ServerBinding paced;
  private static ServerBinding scripted;
  private static ServerBinding counting;
  private static final AtomicInteger calls = new AtomicInteger();
  private static final AtomicInteger counted = new AtomicInteger();

  @BeforeAll
  static void start() throws Exception {
    ReplicaHttpHandler handler = new ReplicaHttpHandler(testKit.system(),
        new ReplicaEndpointSettings("llm#sim#paced000", "sim", 64, 10, 4096, 1 << 20,
            Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(5)),
        new SimulatedEngine(new EngineConfig("simulated", 100, 40, 10, 4096, 64, 64)));
    paced = ReplicaServer.bind(testKit.system(), "127.0.0.1", List.of(0), handler)
        .toCompletableFuture().get();
    // Answers 503 no_replicas, then 429 (no reason), then two complete one-token streams.
    scripted = Http.get(testKit.system()).newServerAt("127.0.0.1", 0)
        .bind((org.apache.pekko.japi.function.Function<HttpRequest,
            CompletionStage<HttpResponse>>) request -> {
          request.discardEntityBytes(testKit.system());
          int call = calls.getAndIncrement() % 4;
          HttpResponse response = switch (call) {
            case 0 -> HttpResponse.create().withStatus(503)
                .addHeader(RawHeader.create("x-serve-reason", "no_replicas"))
                .withEntity("Ingress request router failed: no_replicas");
            case 1 -> HttpResponse.create().withStatus(429);
            default -> HttpResponse.create().addHeader(RawHeader.create("x-sluice-replica",
                    "llm#sim#r" + call + "000000"))
                .withEntity(HttpEntities.create(ContentTypes.TEXT_PLAIN_UTF8,
                    "data: {\"role\"}\n\ndata: {\"tok\"}\n\ndata: {\"finish\"}\n\n"
                        + "data: [DONE]\n\n"));
          };
          return CompletableFuture.completedFuture(response);
        }).toCompletableFuture().get();
    // Answers every request with a complete one-token stream, counting them.
    counting = Http.get(testKit.system()).newServerAt("127.0.0.1", 0)
        .bind((org.apache.pekko.japi.function.Function<HttpRequest,
            CompletionStage<HttpResponse>>) request -> {
          request.discardEntityBytes(testKit.system());
          counted.incrementAndGet();
          return CompletableFuture.completedFuture(HttpResponse.create().withEntity(
              HttpEntities.create(ContentTypes.TEXT_PLAIN_UTF8,
                  "data: {\"role\"}\n\ndata: {\"tok\"}\n\ndata: {\"finish\"}\n\n"
                      + "data: [DONE]\n\n")));
        }).toCompletableFuture().get();
  }

  @AfterAll
  static void stop() {
    paced.unbind();
    scripted.unbind();
    counting.unbind();
    testKit.shutdownTestKit();
  }

  private static LoadOptions options(ServerBinding server, int concurrency, long requests,
      Optional<Duration> duration) {
    return new LoadOptions(URI.create("http://127.0.0.1:" + server.localAddress().getPort()),
        Workload.of("default", Optional.empty(), Optional.of(Distribution.fixed(10)), true,
            Optional.empty(), 1, 1, 1, 0, 7), concurrency, requests, duration, Optional.empty(),
        0, "x-session-id");
  }

  @Test
  void measuredTtftAndItlMatchTheEngineSettings() throws Exception {
    BenchResult result = LoadRun.run(options(paced, 2, 10, Optional.empty()), Progress.none());

    assertThat(result.ok()).isEqualTo(10);
    assertThat(result.outputTokens()).isEqualTo(100);
    // The engine's 100 ms plus whatever a 2-core machine running the suite adds (163 ms seen):
    // far from 0 (nothing measured) and from the whole stream (100 + 9 x 40 = 460 ms).
    assertThat(result.ttftMs().p50()).isBetween(90.0, 250.0);
    assertThat(result.itlMs().p50()).isBetween(30.0, 60.0);
    assertThat(result.itlMs().count()).isEqualTo(90);
  }

  @Test
  void outcomesAreCountedExactlyByStatusAndReason() throws Exception {
    calls.set(0);

    BenchResult result = LoadRun.run(options(scripted, 1, 40, Optional.empty()),
        Progress.none());

    assertThat(result.outcomes()).containsExactlyInAnyOrderEntriesOf(java.util.Map.of(
        "200", 20L, "503 no_replicas", 10L, "429", 10L));
    assertThat(result.requests()).isEqualTo(40);
    assertThat(result.outputTokens()).isEqualTo(20);
    assertThat(result.replicas()).containsOnlyKeys("llm#sim#r2000000", "llm#sim#r3000000");
  }

  @Test
  void durationStopsTheRunOnTime() throws Exception {
    long start = System.nanoTime();

    BenchResult result = LoadRun.run(options(paced, 2, 1_000_000,
        Optional.of(Duration.ofMillis(1500))), Progress.none());

    double seconds = (System.nanoTime() - start) / 1e9;
    assertThat(seconds).isBetween(1.4, 3.0);
    assertThat(result.requests()).isBetween(2L, 100L);
  }

  @Test
  void jsonHasTheDocumentedFields() throws Exception {
    BenchResult result = LoadRun.run(options(paced, 1, 2, Optional.empty()), Progress.none());

    var json = result.toJson();
    java.util.Set<String> fields = new java.util.HashSet<>();
    json.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).isEqualTo(BenchResult.jsonFields());
    assertThat(json.get("ttft_ms").has("p99")).isTrue();
    assertThat(json.get("outcomes").get("200").asLong()).isEqualTo(2);
  }

  @Test
  void sideBySideChargesEachTargetTheServerCpuOfItsOwnMeasuredRoundsOnly() throws Exception {
    calls.set(0);
    counted.set(0);
    // Each server's "CPU" is 1 ms per request it answered: what a target is charged then counts
    // the requests it was sent while measured.
    ServerCpu perRequest = () -> {
      Map<String, Long> used = new LinkedHashMap<>();
      used.put("scripted", calls.get() * 1_000_000L);
      used.put("counting", counted.get() * 1_000_000L);
      return used;
    };
    LoadOptions options = options(scripted, 1, 8, Optional.empty()).withRequests(8, 4);

    List<BenchResult> results = SideBySide.run(List.of(uri(scripted), uri(counting)), options, 2,
        Progress.none(), perRequest);

    // 4 warm-up requests each (round 1 only), then 4 measured per round: 8 measured each.
    assertThat(calls.get()).isEqualTo(12);
    assertThat(counted.get()).isEqualTo(12);
    assertThat(results.get(0).serverCpuSeconds()).containsExactly(
        Map.entry("scripted", 0.008), Map.entry("counting", 0.0));
    assertThat(results.get(1).serverCpuSeconds()).containsExactly(
        Map.entry("scripted", 0.0), Map.entry("counting", 0.008));
    // The scripted server's measured calls 4-11 answered 200 (one token each) four times.
    assertThat(results.get(0).outputTokens()).isEqualTo(4);
    assertThat(results.get(0).serverCpuMicrosPerToken()).containsExactly(
        Map.entry("scripted", 2000.0), Map.entry("counting", 0.0),
        Map.entry(BenchResult.ALL, 2000.0));
    assertThat(results.get(1).serverCpuMicrosPerToken().get(BenchResult.ALL)).isEqualTo(1000.0);
    assertThat(results.get(1).toJson().get("server_cpu_us_per_token").get("counting").asDouble())
        .isEqualTo(1000.0);
  }

  @Test
  void aRunThatKnowsNoServerProcessChargesNothing() throws Exception {
    BenchResult result = LoadRun.run(options(paced, 1, 2, Optional.empty()), Progress.none());

    assertThat(result.serverCpuSeconds()).isEmpty();
    assertThat(result.serverCpuMicrosPerToken()).isEmpty();
    assertThat(result.toJson().get("server_cpu_us_per_token").isEmpty()).isTrue();
  }

  private static URI uri(ServerBinding server) {
    return URI.create("http://127.0.0.1:" + server.localAddress().getPort());
  }
}
