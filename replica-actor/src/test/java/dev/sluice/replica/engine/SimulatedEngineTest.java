package dev.sluice.replica.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.Await;
import dev.sluice.core.config.EngineConfig;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class SimulatedEngineTest {

  private static final String PROMPT = "x".repeat(64 * 10);
  private static final ActorTestKit testKit = ActorTestKit.create(ConfigFactory
      .parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static List<String> generate(SimulatedEngine engine, GenerationRequest request)
      throws Exception {
    return engine.generate(request).runWith(Sink.seq(), testKit.system())
        .toCompletableFuture().get();
  }

  @Test
  void aSeedlessFirstChoiceIsTheTextOfThePromptAlone() {
    assertThat(SimulatedEngine.text("p", Optional.empty(), 0, 12))
        .isEqualTo(SimulatedEngine.text("p", 12))
        .startsWith(SimulatedEngine.token("p", 0) + SimulatedEngine.token("p", 1));
  }

  @Test
  void theSameSeedGivesTheSameTextAndAnotherSeedAnother() {
    String seeded = SimulatedEngine.text("p", Optional.of(7L), 0, 12);

    assertThat(SimulatedEngine.text("p", Optional.of(7L), 0, 12)).isEqualTo(seeded);
    assertThat(seeded).isNotEqualTo(SimulatedEngine.text("p", 12));
    Set<String> texts = new HashSet<>();
    for (long seed = 0; seed < 20; seed++) {
      texts.add(SimulatedEngine.text("p", Optional.of(seed), 0, 12));
    }
    assertThat(texts).as("20 seeds, 20 texts").hasSize(20);
  }

  @Test
  void everyChoiceHasItsOwnTextAndNoneIsTheFirstShifted() {
    Set<String> choices = new HashSet<>();
    for (int choice = 0; choice < 8; choice++) {
      choices.add(SimulatedEngine.text("p", Optional.of(3L), choice, 12));
      choices.add(SimulatedEngine.text("p", Optional.empty(), choice, 12));
    }

    assertThat(choices).hasSize(16).contains(SimulatedEngine.text("p", 12));
    for (int shift = 1; shift <= 8; shift++) {
      assertThat(SimulatedEngine.text("p", Optional.empty(), 1, 12))
          .isNotEqualTo(shiftedBy("p", shift, 12));
    }
  }

  /** The first choice's tokens {@code shift} to {@code shift + tokens - 1}, as a text. */
  private static String shiftedBy(String prompt, int shift, int tokens) {
    StringBuilder text = new StringBuilder();
    for (int i = shift; i < shift + tokens; i++) {
      text.append(SimulatedEngine.token(prompt, i));
    }
    return text.substring(1);
  }

  @Test
  void generationFollowsTheSeedAndChoiceOfTheRequest() throws Exception {
    SimulatedEngine engine = new SimulatedEngine(new EngineConfig("simulated", 0, 0, 8, 4096, 4,
        64));

    List<String> tokens = generate(engine,
        new GenerationRequest("r", "p", 10, Optional.of(5L), 2, List.of()));

    assertThat(String.join("", tokens))
        .isEqualTo(SimulatedEngine.text("p", Optional.of(5L), 2, 10));
  }

  @Test
  void aStopStringEndsGenerationAfterTheTokenThatCompletesItWithoutCountingAnAbort()
      throws Exception {
    SimulatedEngine engine = new SimulatedEngine(new EngineConfig("simulated", 0, 0, 8, 4096, 4,
        64));
    String third = SimulatedEngine.token("stop", 2);
    String full = SimulatedEngine.text("stop", 30);
    int end = full.indexOf(third) + third.length();
    int expected = 0;
    for (int length = 0; length < end; expected++) {
      length += SimulatedEngine.token("stop", expected).length();
    }

    List<String> tokens = generate(engine,
        new GenerationRequest("r", "stop", 30, Optional.empty(), 0, List.of(third)));

    assertThat(tokens).hasSize(expected).hasSizeLessThanOrEqualTo(3);
    assertThat(String.join("", tokens)).isEqualTo(SimulatedEngine.text("stop", expected));
    assertThat(engine.stats().aborted()).isZero();
    assertThat(engine.stats().generatedTokens()).isEqualTo(expected);
  }

  @Test
  void theFirstTokenComesAfterTtftAndEachNextOneAnItlLaterNoneEarly() throws Exception {
    SimulatedEngine engine = new SimulatedEngine(EngineConfig.simulated(30, 20, 8));
    long start = System.nanoTime();

    List<Long> arrivals = engine.generate(
            new GenerationRequest("r", "p", 8, Optional.empty(), 0, List.of()))
        .map(token -> (System.nanoTime() - start) / 1_000_000)
        .runWith(Sink.seq(), testKit.system()).toCompletableFuture().get();

    assertThat(arrivals).hasSize(8);
    for (int i = 0; i < arrivals.size(); i++) {
      assertThat(arrivals.get(i)).as("ms to token %d", i).isGreaterThanOrEqualTo(30 + 20L * i);
    }
  }

  @Test
  void aGenerationBeyondMaxNumSeqsWaitsForThePlaceThenGeneratesWhole() throws Exception {
    SimulatedEngine engine = new SimulatedEngine(new EngineConfig(EngineConfig.SIMULATED, 0, 30,
        3, 4096, 1, 4096));
    long start = System.nanoTime();
    var first = engine.generate(new GenerationRequest("a", "p", 3, Optional.empty(), 0, List.of()))
        .runWith(Sink.seq(), testKit.system()).toCompletableFuture();
    // A stream takes its place when it starts, on the stream's own thread: the first must hold
    // it before the second is run, or either may go first.
    Await.until(Duration.ofSeconds(5), "the first generation running",
        () -> engine.stats().running() == 1);
    var second = engine.generate(new GenerationRequest("b", "q", 3, Optional.empty(), 0,
            List.of()))
        .map(token -> new Object[] {System.nanoTime(), token})
        .runWith(Sink.seq(), testKit.system()).toCompletableFuture();

    assertThat(String.join("", first.get(10, TimeUnit.SECONDS)))
        .isEqualTo(SimulatedEngine.text("p", 3));
    List<Object[]> timed = second.get(10, TimeUnit.SECONDS);
    StringBuilder text = new StringBuilder();
    timed.forEach(pair -> text.append((String) pair[1]));
    assertThat(text.toString()).isEqualTo(SimulatedEngine.text("q", 3));
    // One place: the second starts once the first's three tokens (two intervals) are out.
    assertThat((long) timed.get(0)[0] - start).isGreaterThanOrEqualTo(60_000_000L);
    Await.until(Duration.ofSeconds(5), "no generation left",
        () -> engine.stats().running() == 0 && engine.stats().waiting() == 0);
  }

  @Test
  void prefixCacheCountsLeadingBlocksAlreadySeen() {
    PrefixCache cache = new PrefixCache(64, 100);

    assertThat(cache.lookupAndStore(PROMPT, 160)).isZero();
    assertThat(cache.lookupAndStore(PROMPT, 160)).isEqualTo(640);
    assertThat(cache.lookupAndStore(PROMPT.substring(0, 320) + "y".repeat(400), 180))
        .isEqualTo(320);
    assertThat(cache.hitRatio()).isEqualTo((160 + 80) / (160 + 160 + 180.0));
  }

  @Test
  void prefixCacheEvictsLeastRecentlyUsedBlocks() {
    PrefixCache cache = new PrefixCache(64, 10);
    cache.lookupAndStore(PROMPT, 160);

    cache.lookupAndStore("z".repeat(640), 160);

    assertThat(cache.usedBlocks()).isEqualTo(10);
    assertThat(cache.lookupAndStore(PROMPT, 160)).isZero();
  }

  @Test
  void aPrefixHitShortensTimeToFirstTokenInProportion() {
    Duration ttft = Duration.ofMillis(200);

    assertThat(SimulatedEngine.firstTokenDelay(ttft, 0, 1000)).isEqualTo(ttft);
    assertThat(SimulatedEngine.firstTokenDelay(ttft, 750, 1000)).isEqualTo(Duration.ofMillis(50));
    assertThat(SimulatedEngine.firstTokenDelay(ttft, 1000, 1000)).isZero();
  }

  @Test
  void batchAdmitsUpToMaxNumSeqsAndHandsPlacesOnInOrder() {
    BatchSlots batch = new BatchSlots(2);
    var a = batch.admit();
    var b = batch.admit();
    var c = batch.admit();
    var d = batch.admit();

    assertThat(a.admitted().toCompletableFuture()).isDone();
    assertThat(c.admitted().toCompletableFuture()).isNotDone();
    assertThat(batch.running()).isEqualTo(2);
    assertThat(batch.waiting()).isEqualTo(2);

    d.finish();
    assertThat(batch.waiting()).isEqualTo(1);
    a.finish();
    a.finish();
    assertThat(c.admitted().toCompletableFuture()).isDone();
    assertThat(batch.running()).isEqualTo(2);
    b.finish();
    c.finish();
    assertThat(batch.running()).isZero();
    assertThat(batch.waiting()).isZero();
  }
}
