package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.capacity.CapacityQueue;
import dev.sluice.capacity.CapacitySnapshot;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.RawStream;
import dev.sluice.core.testing.Sse;
import dev.sluice.ingress.IngressBinding;
import dev.sluice.ingress.IngressServer;
import dev.sluice.ingress.IngressSettings;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

import org.junit.jupiter.api.Test;

/**
 * The CapacityQueue end to end: bursts through three ingresses, the queue restarting mid-burst,
 * and leases released exactly once on the direct path.
 */
class CapacityQueueIT {

  private static String app(String policy, int itlMs, int tokens) {
    return """
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: sim}
                engine_config: {type: simulated, ttft_ms: 0, itl_ms: %d, default_max_tokens: %d}
                deployment_config:
                  num_replicas: 4
                  max_ongoing_requests: 8
                  request_router_config: {request_router_class: %s}
        """.formatted(itlMs, tokens, policy);
  }

  private static final String CHAT =
      "{\"messages\":[{\"role\":\"user\",\"content\":\"burst\"}],\"stream\":true}";

  private static CapacitySnapshot snapshot(SluiceNode node) {
    return AskPattern.<CapacityQueue.Command, CapacitySnapshot>ask(node.capacityQueue(),
            CapacityQueue.GetSnapshot::new, Duration.ofSeconds(3), node.system().scheduler())
        .toCompletableFuture().join();
  }

  private static List<ReplicaInfo> replicas(SluiceNode node) {
    return node.ingressView().all().iterator().next().replicas();
  }

  private static int stat(ReplicaInfo replica, String field) {
    try {
      return Sse.json(TestNodes.get(replica.port(), "/-/stats").body()).get(field).asInt();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Two more ingresses on the same node, sharing its router, replica view and queue. */
  private static List<Integer> threeIngresses(SluiceNode node) throws Exception {
    IngressSettings settings = IngressSettings.fromConfig(ConfigFactory.parseString(
        "sluice.ingress.port = 0").withFallback(node.system().settings().config()));
    List<Integer> ports = new ArrayList<>(List.of(node.ingressPort().orElseThrow()));
    for (int i = 0; i < 2; i++) {
      IngressBinding binding = IngressServer.start(node.system(), node.router(), settings,
          node.ingressView(), Optional.of(node.capacityQueue()), fatal -> { })
          .toCompletableFuture().get();
      binding.addToCoordinatedShutdown(Duration.ofSeconds(1), node.system());
      ports.add(binding.localAddress().getPort());
    }
    return ports;
  }

  /** Outcome of one request: "200" for a complete stream, else "503:<reason>". */
  private static CompletableFuture<String> fire(int port) {
    return TestNodes.HTTP.sendAsync(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + port + "/v1/chat/completions"))
            .POST(HttpRequest.BodyPublishers.ofString(CHAT))
            .header("content-type", "application/json").timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString())
        .thenApply(response -> {
          if (response.statusCode() == 200) {
            Sse.jsonFrames(response.body());
            return "200";
          }
          return response.statusCode() + ":"
              + response.headers().firstValue("x-serve-reason").orElse("NO REASON");
        });
  }

  private record Burst(Map<String, Integer> outcomes, Map<String, Integer> peakDemand,
      int maxOngoingSampled) {}

  private static Burst burst(SluiceNode node, List<Integer> ports, int requests) throws Exception {
    AtomicBoolean sampling = new AtomicBoolean(true);
    int[] maxOngoing = {0};
    Thread sampler = new Thread(() -> {
      while (sampling.get()) {
        for (ReplicaInfo replica : replicas(node)) {
          maxOngoing[0] = Math.max(maxOngoing[0], stat(replica, "ongoing"));
        }
      }
    });
    sampler.start();
    List<CompletableFuture<String>> all = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      all.add(fire(ports.get(i % ports.size())));
    }
    Map<String, Integer> outcomes = new TreeMap<>();
    for (CompletableFuture<String> outcome : all) {
      outcomes.merge(outcome.get(60, TimeUnit.SECONDS), 1, Integer::sum);
    }
    sampling.set(false);
    sampler.join();
    Map<String, Integer> peaks = new TreeMap<>();
    for (ReplicaInfo replica : replicas(node)) {
      peaks.put(replica.id().uniqueId(), stat(replica, "peak_demand"));
    }
    return new Burst(outcomes, peaks, maxOngoing[0]);
  }

  private static void assertNoRequestLost(Burst burst, int requests) {
    assertThat(burst.outcomes().values().stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(requests);
    assertThat(burst.outcomes().keySet()).allSatisfy(outcome ->
        assertThat(outcome).matches("200|503:[a-z_]+").doesNotContain("NO REASON"));
  }

  @Test
  void burstThroughThreeIngressesNeverOvershootsAndLeavesNoLease() throws Exception {
    try (SluiceNode node = TestNodes.local(app("capacity-queue", 10, 16), ConfigFactory.empty())) {
      List<Integer> ports = threeIngresses(node);

      Burst burst = burst(node, ports, 500);

      System.out.println("capacity-queue burst: outcomes " + burst.outcomes()
          + ", peak demand per replica " + burst.peakDemand() + " (capacity 8), max sampled "
          + "ongoing " + burst.maxOngoingSampled());
      assertNoRequestLost(burst, 500);
      assertThat(burst.maxOngoingSampled()).isLessThanOrEqualTo(8);
      assertThat(burst.peakDemand().values()).as("no request sent to a full replica")
          .allSatisfy(peak -> assertThat(peak).isLessThanOrEqualTo(8));
      Await.until(Duration.ofSeconds(10), "every lease released and in-flight back to 0", () -> {
        CapacitySnapshot snapshot = snapshot(node);
        return snapshot.leases() == 0 && snapshot.totalInFlight() == 0;
      });
      System.out.println("capacity-queue burst queue counters: " + snapshot(node));
      assertThat(snapshot(node).unknownReleases()).as("each lease released once").isZero();
    }
  }

  @Test
  void sameBurstWithPowerOfTwoForComparison() throws Exception {
    try (SluiceNode node = TestNodes.local(app("power-of-two", 10, 16), ConfigFactory.empty())) {
      Burst burst = burst(node, threeIngresses(node), 500);

      int overshoot = burst.peakDemand().values().stream().mapToInt(p -> p - 8).max().orElse(0);
      System.out.println("power-of-two burst: outcomes " + burst.outcomes()
          + ", peak demand per replica " + burst.peakDemand() + " (capacity 8), max overshoot "
          + Math.max(0, overshoot));
      assertNoRequestLost(burst, 500);
      assertThat(burst.maxOngoingSampled()).isLessThanOrEqualTo(8);
    }
  }

  @Test
  void queueRestartMidBurstFallsBackThenRebuildsFromReplicaCounts() throws Exception {
    try (SluiceNode node = TestNodes.local(app("capacity-queue", 20, 20), ConfigFactory.empty())) {
      int ingress = node.ingressPort().orElseThrow();
      double fallbacksBefore = fallbacks();
      // Four long streams (10 s) hold replica slots across the restart.
      List<CompletableFuture<HttpResponse<String>>> longStreams = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        longStreams.add(TestNodes.HTTP.sendAsync(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + ingress + "/v1/chat/completions"))
            .POST(HttpRequest.BodyPublishers.ofString("{\"messages\":[{\"role\":\"user\","
                + "\"content\":\"long\"}],\"max_tokens\":500,\"stream\":true}"))
            .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString()));
      }
      Await.until(Duration.ofSeconds(5), "long streams leased",
          () -> snapshot(node).leases() == 4);
      AtomicBoolean running = new AtomicBoolean(true);
      Map<String, Integer> outcomes = new ConcurrentHashMap<>();
      List<Thread> clients = new ArrayList<>();
      for (int c = 0; c < 8; c++) {
        Thread client = new Thread(() -> {
          while (running.get()) {
            outcomes.merge(fire(ingress).join(), 1, Integer::sum);
          }
        });
        clients.add(client);
        client.start();
      }

      node.capacityQueue().tell(new CapacityQueue.Restart(4_000));

      Await.until(Duration.ofSeconds(15), "requests fall back to power-of-two after 3 faults",
          () -> fallbacks() > fallbacksBefore);
      running.set(false);
      for (Thread client : clients) {
        client.join(30_000);
      }
      // Back and empty, the queue rebuilds in-flight from the replicas' own counts: the long
      // streams it never leased show up as untracked work.
      Await.until(Duration.ofSeconds(10), "queue in-flight equals the replicas' real counts", () -> {
        CapacitySnapshot snapshot = snapshotOrNull(node);
        int real = replicas(node).stream().mapToInt(r -> stat(r, "ongoing")).sum();
        return snapshot != null && snapshot.leases() == 0 && real >= 4
            && snapshot.totalInFlight() == real;
      });
      System.out.println("queue restart: outcomes " + outcomes + ", fallbacks "
          + (fallbacks() - fallbacksBefore));
      assertThat(outcomes.keySet()).allSatisfy(outcome ->
          assertThat(outcome).matches("200|503:[a-z_]+"));
      for (CompletableFuture<HttpResponse<String>> stream : longStreams) {
        assertThat(stream.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      }
      Await.until(Duration.ofSeconds(10), "counts converge to 0 with the replicas", () -> {
        CapacitySnapshot snapshot = snapshot(node);
        int real = replicas(node).stream().mapToInt(r -> stat(r, "ongoing")).sum();
        return real == 0 && snapshot.totalInFlight() == 0 && snapshot.leases() == 0;
      });
    }
  }

  private static CapacitySnapshot snapshotOrNull(SluiceNode node) {
    try {
      return AskPattern.<CapacityQueue.Command, CapacitySnapshot>ask(node.capacityQueue(),
              CapacityQueue.GetSnapshot::new, Duration.ofMillis(200), node.system().scheduler())
          .toCompletableFuture().get();
    } catch (Exception e) {
      return null;
    }
  }

  private static double fallbacks() {
    return PrometheusRegistry.defaultRegistry.scrape().stream()
        .filter(m -> m.getMetadata().getPrometheusName().equals("sluice_capacity_fallbacks"))
        .flatMap(m -> m.getDataPoints().stream())
        .mapToDouble(p -> ((io.prometheus.metrics.model.snapshots.CounterSnapshot
            .CounterDataPointSnapshot) p).getValue())
        .sum();
  }

  @Test
  void clientDisconnectReleasesTheLeaseExactlyOnce() throws Exception {
    try (SluiceNode node = TestNodes.local(app("capacity-queue", 5, 16), ConfigFactory.empty())) {
      CapacitySnapshot before = snapshot(node);
      try (RawStream stream = RawStream.open(node.ingressPort().orElseThrow(),
          RawStream.longChat(20000))) {
        assertThat(stream.readFrames(3)).isEqualTo(3);
        assertThat(snapshot(node).leases()).isEqualTo(1);
      }
      Await.until(Duration.ofSeconds(2), "lease released", () -> snapshot(node).leases() == 0);
      CapacitySnapshot after = snapshot(node);
      assertThat(after.released() - before.released()).isEqualTo(1);
      assertThat(after.unknownReleases()).isEqualTo(before.unknownReleases());
      Await.until(Duration.ofSeconds(2), "replica slot freed",
          () -> replicas(node).stream().mapToInt(r -> stat(r, "ongoing")).sum() == 0);
    }
  }
}
