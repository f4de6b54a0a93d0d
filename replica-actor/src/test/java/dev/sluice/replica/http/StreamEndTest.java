package dev.sluice.replica.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class StreamEndTest {

  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final Materializer materializer = Materializer.createMaterializer(
      testKit.system());

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void theEndRunsOnceBeforeTheCompletionReachesDownstream() throws Exception {
    AtomicInteger started = new AtomicInteger();
    AtomicInteger ended = new AtomicInteger();
    // What downstream saw of the end at each element and at completion.
    List<Integer> seen = Source.from(List.of(1, 2, 3))
        .via(new StreamEnd<Integer>(started::incrementAndGet, ended::incrementAndGet))
        .map(element -> ended.get())
        .concatLazy(Source.lazySource(() -> Source.single(ended.get() * 10)))
        .runWith(Sink.seq(), materializer).toCompletableFuture().get(5, TimeUnit.SECONDS);

    assertThat(seen).containsExactly(0, 0, 0, 10);
    assertThat(started.get()).isEqualTo(1);
  }

  @Test
  void theEndRunsOnceOnFailureAndOnCancellation() throws Exception {
    AtomicInteger ended = new AtomicInteger();
    var failed = Source.<Integer>failed(new IllegalStateException("engine died"))
        .via(new StreamEnd<Integer>(() -> { }, ended::incrementAndGet))
        .runWith(Sink.ignore(), materializer).toCompletableFuture();
    assertThatThrownBy(() -> failed.get(5, TimeUnit.SECONDS)).hasRootCauseMessage("engine died");
    assertThat(ended.get()).isEqualTo(1);

    AtomicInteger cancelled = new AtomicInteger();
    var first = Source.repeat(7)
        .via(new StreamEnd<Integer>(() -> { }, cancelled::incrementAndGet))
        .toMat(Sink.head(), Keep.right()).run(materializer).toCompletableFuture();
    assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo(7);
    Await.until(Duration.ofSeconds(5), "the end run on cancellation", () -> cancelled.get() > 0);
    assertThat(cancelled.get()).as("once").isEqualTo(1);
  }
}
