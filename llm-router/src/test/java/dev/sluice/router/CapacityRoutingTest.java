package dev.sluice.router;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.capacity.AcquireResult;
import dev.sluice.capacity.CapacityQueue;
import dev.sluice.capacity.Lease;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.metrics.SluiceMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The capacity-queue policy's lease path against a scripted queue. */
class CapacityRoutingTest {

  private static final ActorTestKit testKit = ActorTestKit.create(
      ConfigFactory.parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
  private static final ReplicaInfo REPLICA = new ReplicaInfo(new ReplicaId("llm", "m", "aaaaaaaa"),
      "node", "127.0.0.1", 1, 4, ReplicaState.RUNNING, List.of("m"));

  /** What the scripted queue does with an acquire: answer something, or nothing (a fault). */
  private final AtomicReference<AcquireResult> answer = new AtomicReference<>();
  private final AtomicInteger acquires = new AtomicInteger();
  private final TestProbe<CapacityQueue.Command> releases = testKit.createTestProbe();

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private ActorRef<LLMRouter.Command> router() {
    ActorRef<CapacityQueue.Command> queue = testKit.spawn(Behaviors.receiveMessage(command -> {
      if (command instanceof CapacityQueue.Acquire acquire) {
        acquires.incrementAndGet();
        if (answer.get() != null) {
          acquire.replyTo().tell(answer.get());
        }
      } else {
        releases.ref().tell(command);
      }
      return Behaviors.same();
    }));
    var router = testKit.spawn(LLMRouter.create(new SluiceMetrics(new PrometheusRegistry()),
        Optional.of(queue), Duration.ofSeconds(4)));
    var sets = testKit.spawn(ReplicaSetTopic.behavior());
    TestProbe<RouteResult> probe = testKit.createTestProbe();
    answer.set(new AcquireResult.Granted(new Lease("warm-up", REPLICA, 0)));
    probe.awaitAssert(Duration.ofSeconds(5), () -> {
      sets.tell(ReplicaSetTopic.publish(new ReplicaSet(new DeploymentId("llm", "m"), 1, "/",
          List.of("m"), "capacity-queue", Map.of("acquire_timeout_s", 0.1, "max_faults", 3L),
          List.of(REPLICA))));
      assertThat(route(router, 1000)).isInstanceOf(RouteResult.Routed.class);
      return null;
    });
    acquires.set(0);
    return router;
  }

  private static RouteResult route(ActorRef<LLMRouter.Command> router, long budgetMillis) {
    TestProbe<RouteResult> probe = testKit.createTestProbe();
    router.tell(new LLMRouter.Route(RouteRequest.of("r", Optional.empty())
        .withBudget(budgetMillis), probe.ref()));
    return probe.receiveMessage(Duration.ofSeconds(10));
  }

  @Test
  void aGrantedLeaseTravelsWithTheRoutingAnswer() {
    var router = router();
    answer.set(new AcquireResult.Granted(new Lease("lease-1", REPLICA, 0)));

    assertThat(route(router, 2000)).isEqualTo(new RouteResult.Routed(REPLICA,
        Optional.of("lease-1")));
  }

  @Test
  void exhaustionIsNotAFaultItBacksOffUntilTheBudgetEnds() {
    var router = router();
    answer.set(new AcquireResult.Exhausted("full"));

    RouteResult result = route(router, 600);

    assertThat(result).isInstanceOf(RouteResult.NotRouted.class);
    assertThat(((RouteResult.NotRouted) result).reason()).isEqualTo(ServeReason.CAPACITY_EXHAUSTED);
    assertThat(acquires.get()).as("asked again after backing off").isGreaterThan(2);
  }

  @Test
  void threeFaultsFallBackToPowerOfTwoWithoutALease() {
    var router = router();
    answer.set(null);

    RouteResult result = route(router, 8000);

    assertThat(result).isEqualTo(new RouteResult.Routed(REPLICA, Optional.empty()));
    assertThat(acquires.get()).isEqualTo(3);
  }
}
