package dev.sluice.replica.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.config.EngineConfig;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class MeteredEngineTest {

  private static final ActorTestKit testKit = ActorTestKit.create(ConfigFactory
      .parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static GenerationRequest request(int tokens) {
    return new GenerationRequest("r", "prompt", tokens, Optional.empty(), 0, List.of());
  }

  @Test
  void eachGenerationReportsTheTimeFromItsStartToItsFirstTokenOnce() throws Exception {
    List<Double> seconds = new CopyOnWriteArrayList<>();
    MeteredEngine engine = new MeteredEngine(new SimulatedEngine(new EngineConfig(
        EngineConfig.SIMULATED, 50, 5, 4, 4096, 8, 4096)), seconds::add);
    Source<String, NotUsed> generation = engine.generate(request(4));

    List<String> tokens = generation.runWith(Sink.seq(), testKit.system())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    generation.runWith(Sink.ignore(), testKit.system())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(tokens).hasSize(4);
    // One figure per run of the generation (each run is a request), none per later token; the
    // simulated engine's first token is never early.
    assertThat(seconds).hasSize(2).allSatisfy(s -> assertThat(s).isBetween(0.050, 5.0));
  }

  @Test
  void aGenerationThatEndsWithoutATokenReportsNothing() throws Exception {
    List<Double> seconds = new CopyOnWriteArrayList<>();
    MeteredEngine engine = new MeteredEngine(new Tokenless(), seconds::add);

    engine.generate(request(1)).runWith(Sink.ignore(), testKit.system())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(seconds).isEmpty();
  }

  /** An engine whose every generation ends at once, without a token. */
  private static final class Tokenless implements Engine {

    @Override
    public CompletionStage<Done> start() {
      return CompletableFuture.completedFuture(Done.getInstance());
    }

    @Override
    public Source<String, NotUsed> generate(GenerationRequest request) {
      return Source.empty();
    }

    @Override
    public EngineStats stats() {
      return new EngineStats(0, 0, 0, 0, 0, 0);
    }

    @Override
    public CompletionStage<Done> stop() {
      return CompletableFuture.completedFuture(Done.getInstance());
    }
  }
}
