package dev.sluice.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class ActorMetricsTest {

  private static final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  sealed interface Msg {}

  record Block(CountDownLatch started, CountDownLatch release) implements Msg {}

  record Ping(CountDownLatch done) implements Msg {}

  private static Behavior<Msg> worker() {
    return Behaviors.receive(Msg.class)
        .onMessage(Block.class, block -> {
          block.started().countDown();
          block.release().await(10, TimeUnit.SECONDS);
          return Behaviors.same();
        })
        .onMessage(Ping.class, ping -> {
          ping.done().countDown();
          return Behaviors.same();
        })
        .build();
  }

  private static double gauge(String name, String actor) {
    return PrometheusRegistry.defaultRegistry.scrape(n -> n.equals(name)).stream()
        .flatMap(s -> ((GaugeSnapshot) s).getDataPoints().stream())
        .filter(p -> actor.equals(p.getLabels().get("actor")))
        .mapToDouble(GaugeSnapshot.GaugeDataPointSnapshot::getValue).sum();
  }

  @Test
  void countsMessagesByTypeTimesThemAndKeepsTheMailboxDepth() throws Exception {
    SluiceMetrics metrics = new SluiceMetrics(new PrometheusRegistry());
    // "replica" is one of the kinds configured under sluice.mailboxes in reference.conf.
    double depthBefore = gauge("sluice_actor_mailbox_depth", "replica");
    ActorRef<Msg> actor = testKit.spawn(ActorMetrics.instrument(metrics, "test-worker", worker()),
        "worker", CountingMailbox.selector("replica"));
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch pinged = new CountDownLatch(5);
    try {
      actor.tell(new Block(started, release));
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      for (int i = 0; i < 5; i++) {
        actor.tell(new Ping(pinged));
      }
      // The worker is blocked in its first message: the five pings wait in its mailbox.
      assertThat(gauge("sluice_actor_mailbox_depth", "replica") - depthBefore).isEqualTo(5);
    } finally {
      release.countDown();
    }
    assertThat(pinged.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(gauge("sluice_actor_mailbox_depth", "replica") - depthBefore).isZero();

    // The interceptor counts a message once its handling returns: a moment after the latch.
    dev.sluice.core.testing.Await.until(java.time.Duration.ofSeconds(5), "six messages timed",
        () -> metrics.registry().scrape(n -> n.equals("sluice_actor_processing_seconds"))
            .stream().flatMap(s -> ((HistogramSnapshot) s).getDataPoints().stream())
            .mapToLong(HistogramSnapshot.HistogramDataPointSnapshot::getCount).sum() == 6);
    var counts = metrics.registry().scrape(n -> n.equals("sluice_actor_messages")).stream()
        .flatMap(s -> ((CounterSnapshot) s).getDataPoints().stream()).toList();
    assertThat(counts).anySatisfy(p -> {
      assertThat(p.getLabels().get("actor")).isEqualTo("test-worker");
      assertThat(p.getLabels().get("message")).isEqualTo("ActorMetricsTest.Ping");
      assertThat(p.getValue()).isEqualTo(5);
    });
    assertThat(counts).anySatisfy(p -> {
      assertThat(p.getLabels().get("message")).isEqualTo("ActorMetricsTest.Block");
      assertThat(p.getValue()).isEqualTo(1);
    });
    var timing = metrics.registry().scrape(n -> n.equals("sluice_actor_processing_seconds"))
        .stream().flatMap(s -> ((HistogramSnapshot) s).getDataPoints().stream()).toList();
    assertThat(timing).singleElement().satisfies(p -> assertThat(p.getCount()).isEqualTo(6));
    testKit.stop(actor);
  }

  @Test
  void messageTypeNamesAreBounded() {
    assertThat(ActorMetrics.messageName(Ping.class)).isEqualTo("ActorMetricsTest.Ping");
    Runnable lambda = () -> { };
    assertThat(ActorMetrics.messageName(lambda.getClass())).isEqualTo("ActorMetricsTest");
    Object anonymous = new Object() { };
    assertThat(ActorMetrics.messageName(anonymous.getClass()))
        .isEqualTo("ActorMetricsTest.anonymous");
  }
}
