package dev.sluice.router;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.metrics.SluiceMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The relayed path's slot reservations ({@link LLMRouter.Choose}) against real HTTP servers on
 * loopback: when no replica grants a slot in time, the answer says whether they refused
 * (replica_at_capacity) or could not be asked at all (replica_unreachable), in words without
 * the replica's address.
 */
class ReservationWalkTest {

  private static final ActorTestKit testKit = ActorTestKit.create(
      ConfigFactory.parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static ReplicaInfo replica(String uid, String model, int port) {
    return new ReplicaInfo(new ReplicaId("llm", model, uid), "node", "127.0.0.1", port, 4,
        ReplicaState.RUNNING, List.of(model));
  }

  /** A router serving {@code replica} alone, once it has heard the set. */
  private static ActorRef<LLMRouter.Command> routerFor(ReplicaInfo replica) {
    var router = testKit.spawn(LLMRouter.create(new SluiceMetrics(new PrometheusRegistry())));
    var sets = testKit.spawn(ReplicaSetTopic.behavior());
    TestProbe<RouteResult> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(5), () -> {
      sets.tell(ReplicaSetTopic.publish(new ReplicaSet(replica.id().deploymentId(), 1, "/",
          List.of(replica.modelIds().get(0)), "round-robin", Map.of(), List.of(replica))));
      router.tell(new LLMRouter.Route(RouteRequest.of("warm", Optional.empty()), probe.ref()));
      assertThat(probe.receiveMessage()).isInstanceOf(RouteResult.Routed.class);
      return null;
    });
    return router;
  }

  private static RouteResult choose(ActorRef<LLMRouter.Command> router) {
    TestProbe<RouteResult> probe = testKit.createTestProbe();
    router.tell(new LLMRouter.Choose(RouteRequest.of("r", Optional.empty()), 800, probe.ref()));
    return probe.receiveMessage(Duration.ofSeconds(10));
  }

  @Test
  void aReplicaNobodyCanReachIsUnreachableNotAtCapacity() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    RouteResult result = choose(routerFor(replica("gone0000", "a", closed)));

    assertThat(result).isInstanceOf(RouteResult.NotRouted.class);
    RouteResult.NotRouted refused = (RouteResult.NotRouted) result;
    assertThat(refused.reason()).isEqualTo(ServeReason.REPLICA_UNREACHABLE);
    assertThat(refused.detail()).contains("could be asked for a slot in time",
        "replica llm#a#gone0000: connection refused or failed");
    assertThat(refused.detail()).doesNotContain("127.0.0.1", String.valueOf(closed));
  }

  @Test
  void aReplicaThatRefusesIsAtCapacity() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/-/reservations", exchange -> {
      asked.incrementAndGet();
      byte[] body = "{\"ongoing\":4}".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(503, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    try {
      RouteResult result = choose(routerFor(replica("full0000", "b",
          server.getAddress().getPort())));

      assertThat(result).isInstanceOf(RouteResult.NotRouted.class);
      RouteResult.NotRouted refused = (RouteResult.NotRouted) result;
      assertThat(refused.reason()).isEqualTo(ServeReason.REPLICA_AT_CAPACITY);
      assertThat(refused.detail()).contains("granted a slot in time")
          .doesNotContain("failed");
      assertThat(asked.get()).isGreaterThan(1);  // asked again after backing off
    } finally {
      server.stop(0);
    }
  }

  @Test
  void failuresAreDescribedWithoutTheirMessages() {
    assertThat(dev.sluice.router.reserve.ReservationClient.describe(
        new java.util.concurrent.CompletionException(new org.apache.pekko.stream
            .StreamTcpException("Tcp command [Connect(10.1.2.3:30000)] failed"))))
        .isEqualTo("connection refused or failed");
    assertThat(dev.sluice.router.reserve.ReservationClient.describe(
        new org.apache.pekko.stream.BufferOverflowException("Exceeded max-open-requests")))
        .isEqualTo("too many reservation requests queued for it");
    assertThat(dev.sluice.router.reserve.ReservationClient.describe(
        new java.util.concurrent.TimeoutException()))
        .isEqualTo("no answer in time");
  }
}
