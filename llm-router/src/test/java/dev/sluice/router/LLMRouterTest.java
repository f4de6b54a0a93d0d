package dev.sluice.router;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.NodeTopics;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.openai.ForwardedBody;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.TopicCounts;
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
    return set(version, "round-robin", replicas);
  }

  private static ReplicaSet set(long version, String policy, List<ReplicaInfo> replicas) {
    return new ReplicaSet(new DeploymentId("llm", "sim"), version, "/", List.of("sim"),
        policy, Map.of(), replicas);
  }

  @Test
  void powerOfTwoFollowsReplicaLoadReportsAndItsOwnAssignments() {
    var router = testKit.spawn(LLMRouter.create(
        new dev.sluice.core.metrics.SluiceMetrics(
            new io.prometheus.metrics.model.registry.PrometheusRegistry())));
    var sets = testKit.spawn(ReplicaSetTopic.behavior());
    var loads = testKit.spawn(dev.sluice.core.ReplicaLoadTopic.behavior());
    ReplicaInfo busy = replica("busy0000");
    ReplicaInfo idle = replica("idle0000");
    TestProbe<RouteResult> waiter = testKit.createTestProbe();
    waiter.awaitAssert(Duration.ofSeconds(5), () -> {
      sets.tell(ReplicaSetTopic.publish(set(1, "power-of-two", List.of(busy, idle))));
      assertThat(route(router, Optional.empty())).isInstanceOf(RouteResult.Routed.class);
      return null;
    });
    // One report through the topic: busy is full, so power-of-two must skip it every time.
    loads.tell(org.apache.pekko.actor.typed.pubsub.Topic.publish(dev.sluice.core.ReplicaLoads.of(
        new dev.sluice.core.ReplicaLoad(busy.id(), 4, 0, 4, 0, 0))));
    waiter.awaitAssert(Duration.ofSeconds(5), () -> {
      for (int i = 0; i < 10; i++) {
        assertThat(route(router, Optional.empty())).isEqualTo(new RouteResult.Routed(idle));
      }
      return null;
    });

    // Exact accounting from known counts (sent directly, so ordered with the routes below):
    // busy 3, idle 0 of 4; every pick adds one to the chosen replica.
    router.tell(new LLMRouter.Observed(busy.id(), 3));
    router.tell(new LLMRouter.Observed(idle.id(), 0));
    for (int i = 0; i < 3; i++) {
      assertThat(route(router, Optional.empty())).isEqualTo(new RouteResult.Routed(idle));
    }
    Set<String> picked = new HashSet<>();
    for (int i = 0; i < 2; i++) {
      picked.add(((RouteResult.Routed) route(router, Optional.empty())).replica().id().uniqueId());
    }
    assertThat(picked).containsExactlyInAnyOrder("busy0000", "idle0000");
    RouteResult full = route(router, Optional.empty());
    assertThat(full).isInstanceOf(RouteResult.NotRouted.class);
    assertThat(((RouteResult.NotRouted) full).detail()).contains("at max_ongoing_requests");
  }

  @Test
  void subscribesThroughTheNodesSharedTopicsAndLeavesThemWhenStopped() {
    NodeTopics topics = NodeTopics.get(testKit.system());
    int sets = TopicCounts.of(testKit, topics.replicaSets()).localSubscriberCount();
    int loads = TopicCounts.of(testKit, topics.replicaLoads()).localSubscriberCount();
    var router = testKit.spawn(LLMRouter.create(new dev.sluice.core.metrics.SluiceMetrics(
        new io.prometheus.metrics.model.registry.PrometheusRegistry())));
    Await.until(Duration.ofSeconds(5), "the router subscribed on this node's topic actors",
        () -> TopicCounts.of(testKit, topics.replicaSets()).localSubscriberCount() == sets + 1
            && TopicCounts.of(testKit, topics.replicaLoads()).localSubscriberCount() == loads + 1);
    topics.replicaSets().tell(ReplicaSetTopic.publish(set(1, List.of(replica("cccccccc")))));
    TestProbe<RouteResult> waiter = testKit.createTestProbe();
    waiter.awaitAssert(Duration.ofSeconds(5), () -> {
      assertThat(route(router, Optional.empty())).isInstanceOf(RouteResult.Routed.class);
      return null;
    });

    testKit.stop(router);

    Await.until(Duration.ofSeconds(5), "the stopped router left the topics",
        () -> TopicCounts.of(testKit, topics.replicaSets()).localSubscriberCount() == sets
            && TopicCounts.of(testKit, topics.replicaLoads()).localSubscriberCount() == loads);
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
  void aRequestIsRoutedAmongTheDeploymentsOfItsApplicationOnly() {
    var router = testKit.spawn(LLMRouter.create(new dev.sluice.core.metrics.SluiceMetrics(
        new io.prometheus.metrics.model.registry.PrometheusRegistry())));
    var topic = testKit.spawn(ReplicaSetTopic.behavior());
    // Two applications serving a model of the same name, and a second model in one of them.
    ReplicaSet root = set(1, List.of(replica("aaaaaaaa")));
    ReplicaSet chat = new ReplicaSet(new DeploymentId("chat", "sim"), 1, "/chat",
        List.of("sim"), "round-robin", Map.of(), List.of(new ReplicaInfo(
            new ReplicaId("chat", "sim", "bbbbbbbb"), "node", "127.0.0.1", 2, 4,
            ReplicaState.RUNNING, List.of("sim"))));
    ReplicaSet other = new ReplicaSet(new DeploymentId("chat", "other"), 1, "/chat",
        List.of("other"), "round-robin", Map.of(), List.of(new ReplicaInfo(
            new ReplicaId("chat", "other", "cccccccc"), "node", "127.0.0.1", 3, 4,
            ReplicaState.RUNNING, List.of("other"))));
    TestProbe<RouteResult> probe = testKit.createTestProbe();
    // The router subscribes asynchronously, possibly between two of these publications:
    // publish until it knows all three sets.
    probe.awaitAssert(Duration.ofSeconds(5), () -> {
      List.of(root, chat, other).forEach(set -> topic.tell(ReplicaSetTopic.publish(set)));
      assertThat(routeIn(router, "llm", Optional.of("sim"))).isInstanceOf(RouteResult.Routed.class);
      assertThat(routeIn(router, "chat", Optional.of("sim")))
          .isInstanceOf(RouteResult.Routed.class);
      assertThat(routeIn(router, "chat", Optional.of("other")))
          .isInstanceOf(RouteResult.Routed.class);
      return null;
    });

    assertThat(routeIn(router, "llm", Optional.of("sim"))).extracting(r ->
        ((RouteResult.Routed) r).replica().id().toString()).isEqualTo("llm#sim#aaaaaaaa");
    assertThat(routeIn(router, "chat", Optional.of("sim"))).extracting(r ->
        ((RouteResult.Routed) r).replica().id().toString()).isEqualTo("chat#sim#bbbbbbbb");
    assertThat(routeIn(router, "llm", Optional.empty())).as("its only deployment")
        .extracting(r -> ((RouteResult.Routed) r).replica().id().toString())
        .isEqualTo("llm#sim#aaaaaaaa");
    assertThat(routeIn(router, "llm", Optional.of("other"))).isEqualTo(new RouteResult.NotRouted(
        ServeReason.MODEL_NOT_FOUND,
        "The model `other` does not exist in application `llm` (served: sim)"));
    assertThat(routeIn(router, "chat", Optional.empty())).isEqualTo(new RouteResult.NotRouted(
        ServeReason.MODEL_REQUIRED, "model: missing (expected: one of other, sim)"));
    assertThat(routeIn(router, "gone", Optional.empty())).isEqualTo(new RouteResult.NotRouted(
        ServeReason.NO_REPLICAS, "no deployments of application `gone` known to the router yet"));
  }

  private static RouteResult routeIn(
      org.apache.pekko.actor.typed.ActorRef<LLMRouter.Command> router, String app,
      Optional<String> model) {
    TestProbe<RouteResult> probe = testKit.createTestProbe();
    router.tell(new LLMRouter.Route(RouteRequest.of("r", Optional.empty()).withModel(model)
        .withApp(Optional.of(app)), probe.ref()));
    return probe.receiveMessage();
  }

  @Test
  void picksFromThePublishedSetAndNamesWhatIsMissing() {
    var registry = new io.prometheus.metrics.model.registry.PrometheusRegistry();
    var router = testKit.spawn(LLMRouter.create(
        new dev.sluice.core.metrics.SluiceMetrics(registry)));
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

    // The model as the ingress sends it with body forwarding off: a field, no body.
    TestProbe<RouteResult> byField = testKit.createTestProbe();
    router.tell(new LLMRouter.Route(RouteRequest.of("r", Optional.empty())
        .withModel(Optional.of("sim")), byField.ref()));
    assertThat(byField.receiveMessage()).isInstanceOf(RouteResult.Routed.class);
    router.tell(new LLMRouter.Route(RouteRequest.of("r", Optional.empty())
        .withModel(Optional.of("other")), byField.ref()));
    assertThat(byField.receiveMessage()).extracting(r -> ((RouteResult.NotRouted) r).reason())
        .isEqualTo(ServeReason.MODEL_NOT_FOUND);

    RouteResult unknownModel = route(router, Optional.of("other"));
    assertThat(unknownModel).isEqualTo(new RouteResult.NotRouted(ServeReason.MODEL_NOT_FOUND,
        "The model `other` does not exist (served: sim)"));

    unused.awaitAssert(Duration.ofSeconds(5), () -> {
      topic.tell(ReplicaSetTopic.publish(set(2, List.of())));
      assertThat(route(router, Optional.empty())).isEqualTo(new RouteResult.NotRouted(
          ServeReason.NO_REPLICAS, "no replicas available for llm#sim"));
      return null;
    });

    // An older version never replaces a newer one.
    topic.tell(ReplicaSetTopic.publish(two));
    assertThat(route(router, Optional.empty())).isInstanceOf(RouteResult.NotRouted.class);

    // Decisions are counted by outcome, per deployment and policy.
    var decisions = registry.scrape().stream()
        .filter(m -> m.getMetadata().getPrometheusName().equals("sluice_router_decisions"))
        .findFirst().orElseThrow();
    double routed = decisions.getDataPoints().stream()
        .filter(p -> p.getLabels().get("outcome").equals("routed")
            && p.getLabels().get("policy").equals("round-robin"))
        .mapToDouble(p -> ((io.prometheus.metrics.model.snapshots.CounterSnapshot
            .CounterDataPointSnapshot) p).getValue()).sum();
    assertThat(routed).isGreaterThanOrEqualTo(5);
  }

  @Test
  void aRouterThatHasNotHeardAnySetYetSaysSoInsteadOfNoReplicas() {
    var router = testKit.spawn(LLMRouter.create(new dev.sluice.core.metrics.SluiceMetrics(
        new io.prometheus.metrics.model.registry.PrometheusRegistry())));
    RouteResult first = route(router, Optional.empty());
    assertThat(first).isInstanceOf(RouteResult.NotRouted.class);
    assertThat(((RouteResult.NotRouted) first).reason()).isEqualTo(ServeReason.ROUTER_UNREACHABLE);
    assertThat(((RouteResult.NotRouted) first).detail()).contains("has not received the replica "
        + "sets yet");
  }

  @Test
  void aRequestThatArrivesBeforeTheFirstSetWaitsForItAndIsRouted() {
    var router = testKit.spawn(LLMRouter.create(new dev.sluice.core.metrics.SluiceMetrics(
        new io.prometheus.metrics.model.registry.PrometheusRegistry())));
    var topic = testKit.spawn(ReplicaSetTopic.behavior());
    TestProbe<RouteResult> early = testKit.createTestProbe();
    router.tell(new LLMRouter.Route(new RouteRequest("early", Optional.empty(),
        Optional.empty()), early.ref()));
    early.expectNoMessage(Duration.ofMillis(200));  // held, not refused

    // Publish once this topic knows the router's (its subscription is asynchronous).
    TestProbe<org.apache.pekko.actor.typed.pubsub.Topic.TopicStats> stats =
        testKit.createTestProbe();
    stats.awaitAssert(Duration.ofSeconds(5), () -> {
      topic.tell(org.apache.pekko.actor.typed.pubsub.Topic.getTopicStats(stats.ref()));
      assertThat(stats.receiveMessage().topicInstanceCount()).isPositive();
      return null;
    });
    topic.tell(ReplicaSetTopic.publish(set(1, List.of(replica("aaaaaaaa")))));
    RouteResult answer = early.receiveMessage(Duration.ofSeconds(3));
    assertThat(answer).isInstanceOf(RouteResult.Routed.class);
    assertThat(((RouteResult.Routed) answer).replica().id().uniqueId()).isEqualTo("aaaaaaaa");
  }

  @Test
  void aRemovedDeploymentIsForgottenSoTheOtherOneServesRequestsWithoutAModel() {
    var router = testKit.spawn(LLMRouter.create(new dev.sluice.core.metrics.SluiceMetrics(
        new io.prometheus.metrics.model.registry.PrometheusRegistry())));
    var topic = testKit.spawn(ReplicaSetTopic.behavior());
    DeploymentId old = new DeploymentId("default", "sluice-sim");
    TestProbe<RouteResult> unused = testKit.createTestProbe();
    unused.awaitAssert(Duration.ofSeconds(5), () -> {
      topic.tell(ReplicaSetTopic.publish(set(1, List.of(replica("aaaaaaaa")))));
      topic.tell(ReplicaSetTopic.publish(new ReplicaSet(old, 1, "/", List.of("sluice-sim"),
          "round-robin", Map.of(), List.of())));
      assertThat(route(router, Optional.empty())).isEqualTo(new RouteResult.NotRouted(
          ServeReason.MODEL_REQUIRED, "model: missing (expected: one of sim, sluice-sim)"));
      return null;
    });

    topic.tell(ReplicaSetTopic.publish(new ReplicaSet(old, 2, "/", List.of("sluice-sim"),
        "round-robin", Map.of(), List.of(), true)));
    unused.awaitAssert(Duration.ofSeconds(5), () -> {
      assertThat(route(router, Optional.empty())).isInstanceOf(RouteResult.Routed.class);
      return null;
    });
    // A set older than the removal does not bring it back.
    topic.tell(ReplicaSetTopic.publish(new ReplicaSet(old, 1, "/", List.of("sluice-sim"),
        "round-robin", Map.of(), List.of())));
    assertThat(route(router, Optional.empty())).isInstanceOf(RouteResult.Routed.class);
  }

  @Test
  void aRetriedRequestNeverGoesBackToTheReplicaThatRefusedIt() {
    var router = testKit.spawn(LLMRouter.create(new dev.sluice.core.metrics.SluiceMetrics(
        new io.prometheus.metrics.model.registry.PrometheusRegistry())));
    var topic = testKit.spawn(ReplicaSetTopic.behavior());
    ReplicaInfo refused = replica("dead0000");
    ReplicaInfo alive = replica("live0000");
    TestProbe<RouteResult> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(5), () -> {
      topic.tell(ReplicaSetTopic.publish(set(1, "power-of-two", List.of(refused, alive))));
      assertThat(route(router, Optional.empty())).isInstanceOf(RouteResult.Routed.class);
      return null;
    });

    RouteRequest retry = new RouteRequest("r", Optional.empty(), Optional.empty())
        .excluding(refused.id().toString());
    for (int i = 0; i < 20; i++) {
      router.tell(new LLMRouter.Route(retry, probe.ref()));
      assertThat(probe.receiveMessage()).isEqualTo(new RouteResult.Routed(alive));
    }
    router.tell(new LLMRouter.Route(retry.excluding(alive.id().toString()), probe.ref()));
    assertThat(probe.receiveMessage()).isInstanceOf(RouteResult.NotRouted.class);
  }
}
