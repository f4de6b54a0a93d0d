package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.Sse;
import dev.sluice.router.RouteRequest;
import dev.sluice.router.RouterClient;
import dev.sluice.router.Selection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.stream.Materializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** choose/dispatch with slot reservations against real replicas. */
class ChooseDispatchIT {

  private static SluiceNode node;
  private static RouterClient client;

  @BeforeAll
  static void start() throws Exception {
    node = TestNodes.local(TestNodes.app(2, 0, 1, 2),
        ConfigFactory.parseString("sluice.replica.reservation-timeout = 1s"));
    client = new RouterClient(node.system(), node.router(), Duration.ofSeconds(3));
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static List<ReplicaInfo> replicas() {
    return node.ingressView().all().iterator().next().replicas();
  }

  private static int ongoing(ReplicaInfo replica) {
    try {
      return Sse.json(TestNodes.get(replica.port(), "/-/stats").body()).get("ongoing")
          .asInt();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static int totalOngoing() {
    return replicas().stream().mapToInt(ChooseDispatchIT::ongoing).sum();
  }

  private static Selection choose(String id) throws Exception {
    return client.choose(RouteRequest.of(id, Optional.empty())).toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  private static HttpRequest chat(int maxTokens) {
    return HttpRequest.POST("/v1/chat/completions").withEntity(ContentTypes.APPLICATION_JSON,
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":" + maxTokens
            + ",\"stream\":true}");
  }

  @Test
  void dispatchUsesTheReservedSlotAndOnlyOnce() throws Exception {
    Selection selection = choose("once");
    assertThat(selection.reserved()).isTrue();
    assertThat(ongoing(selection.replica())).isEqualTo(1);

    HttpResponse response = selection.dispatch(chat(5)).toCompletableFuture().get();
    String body = response.entity().toStrict(5_000, Materializer.matFromSystem(node.system()))
        .toCompletableFuture().get().getData().utf8String();

    assertThat(response.status().intValue()).isEqualTo(200);
    assertThat(Sse.jsonFrames(body)).hasSize(7);
    assertThatThrownBy(() -> selection.dispatch(chat(5)).toCompletableFuture().join())
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
    selection.close();
    Await.until(Duration.ofSeconds(2), "slot freed after the answer", () -> totalOngoing() == 0);
  }

  @Test
  void probingAReplicaReadsItsTrueOngoingCount() throws Exception {
    var prober = new dev.sluice.router.load.ReplicaProber(node.system());
    ReplicaInfo replica = replicas().get(0);
    try (Selection held = client.choose(RouteRequest.of("probe", Optional.empty()))
        .toCompletableFuture().get()) {
      var probed = prober.probe(held.replica(), Duration.ofSeconds(1)).toCompletableFuture()
          .get();
      assertThat(probed.ongoing()).isEqualTo(1);
    }
    Await.until(Duration.ofSeconds(2), "released", () -> totalOngoing() == 0);
    assertThat(prober.probe(replica, Duration.ofSeconds(1)).toCompletableFuture().get().ongoing())
        .isZero();
  }

  @Test
  void aPickOnlySelectionCannotBeDispatched() throws Exception {
    Selection picked = client.pick(RouteRequest.of("pick", Optional.empty()))
        .toCompletableFuture().get();

    assertThat(picked.reserved()).isFalse();
    assertThatThrownBy(() -> picked.dispatch(chat(1)).toCompletableFuture().join())
        .hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("without a reservation");
  }

  @Test
  void anAbandonedSelectionFreesItsSlot() throws Exception {
    Selection selection = choose("abandoned");
    assertThat(totalOngoing()).isEqualTo(1);

    selection.close();
    selection.close();

    Await.until(Duration.ofSeconds(2), "slot released", () -> totalOngoing() == 0);
  }

  @Test
  void anUnconsumedReservationExpires() throws Exception {
    choose("forgotten");
    assertThat(totalOngoing()).isEqualTo(1);

    Await.until(Duration.ofSeconds(5), "reservation expired", () -> totalOngoing() == 0);
  }

  @Test
  void concurrentReservationsNeverExceedMaxOngoingRequests() throws Exception {
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger maxSeen = new AtomicInteger();
    Thread sampler = new Thread(() -> {
      while (running.get()) {
        for (ReplicaInfo replica : replicas()) {
          maxSeen.accumulateAndGet(ongoing(replica), Math::max);
        }
      }
    });
    sampler.start();
    ExecutorService threads = Executors.newFixedThreadPool(8);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int thread = t;
      results.add(threads.submit(() -> {
        int granted = 0;
        for (int i = 0; i < 10; i++) {
          try (Selection selection = choose("t" + thread + "-" + i)) {
            granted++;
            Thread.sleep(5);
          }
        }
        return granted;
      }));
    }
    int granted = 0;
    for (Future<Integer> result : results) {
      granted += result.get(60, TimeUnit.SECONDS);
    }
    running.set(false);
    sampler.join();
    threads.shutdown();

    assertThat(granted).isEqualTo(80);
    assertThat(maxSeen.get()).isBetween(1, 2);
    Await.until(Duration.ofSeconds(2), "all slots released", () -> totalOngoing() == 0);
  }

}
