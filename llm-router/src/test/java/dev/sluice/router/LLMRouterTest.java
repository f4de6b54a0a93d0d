package dev.sluice.router;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.openai.ForwardedBody;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class LLMRouterTest {

  private static final ActorTestKit testKit = ActorTestKit.create(
      ConfigFactory.parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static ReplicaInfo replica(String uid) {
    return new ReplicaInfo(new ReplicaId("llm", "sim", uid), "node", "127.0.0.1", 1, 4,
        ReplicaState.RUNNING, List.of("sim"));
  }

  private static ReplicaSet set(long version, List<ReplicaInfo> replicas) {
    return new ReplicaSet(new DeploymentId("llm", "sim"), version, "/", List.of("sim"),
        "round-robin", Map.of(), replicas);
  }

  private static RouteResult route(
      org.apache.pekko.actor.typed.ActorRef<LLMRouter.Command> router, Optional<String> model) {
    TestProbe<RouteResult> probe = testKit.createTestProbe();
    router.tell(new LLMRouter.Route(new RouteRequest("r", Optional.empty(), model.map(m ->
        ForwardedBody.whole(("{\"model\":\"" + m + "\"}").getBytes(StandardCharsets.UTF_8)))),
        probe.ref()));
    return probe.receiveMessage();
  }

  @Test
  void picksFromThePublishedSetAndNamesWhatIsMissing() {
    var router = testKit.spawn(LLMRouter.create(
        new dev.sluice.core.metrics.SluiceMetrics(
            new io.prometheus.metrics.model.registry.PrometheusRegistry())));
    var topic = testKit.spawn(ReplicaSetTopic.behavior());
    ReplicaSet two = set(1, List.of(replica("aaaaaaaa"), replica("bbbbbbbb")));

    // The router subscribes asynchronously: publish until it has the set.
    TestProbe<RouteResult> unused = testKit.createTestProbe();
    unused.awaitAssert(Duration.ofSeconds(5), () -> {
      topic.tell(ReplicaSetTopic.publish(two));
      assertThat(route(router, Optional.empty())).isInstanceOf(RouteResult.Routed.class);
      return null;
    });

    Set<String> picked = new HashSet<>();
    for (int i = 0; i < 4; i++) {
      picked.add(((RouteResult.Routed) route(router, Optional.of("sim"))).replica().id()
          .uniqueId());
    }
    assertThat(picked).containsExactlyInAnyOrder("aaaaaaaa", "bbbbbbbb");

    RouteResult unknownModel = route(router, Optional.of("other"));
    assertThat(unknownModel).isEqualTo(new RouteResult.NotRouted(ServeReason.NO_REPLICAS,
        "no deployment serves model 'other'"));

    unused.awaitAssert(Duration.ofSeconds(5), () -> {
      topic.tell(ReplicaSetTopic.publish(set(2, List.of())));
      assertThat(route(router, Optional.empty())).isEqualTo(new RouteResult.NotRouted(
          ServeReason.NO_REPLICAS, "no replicas available for llm#sim"));
      return null;
    });

    // An older version never replaces a newer one.
    topic.tell(ReplicaSetTopic.publish(two));
    assertThat(route(router, Optional.empty())).isInstanceOf(RouteResult.NotRouted.class);
  }
}
