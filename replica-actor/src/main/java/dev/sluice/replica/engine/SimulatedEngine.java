package dev.sluice.replica.engine;

import dev.sluice.core.config.EngineConfig;
import dev.sluice.core.openai.StopStrings;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * A deterministic engine for tests, demos and benchmarks: the output depends only on the prompt,
 * the client's {@code seed} and the choice, the first token comes {@code ttft_ms} after admission,
 * the next ones every {@code itl_ms} after it (0 = as fast as the stream pulls), to within a
 * millisecond ({@link TokenPacer}). Token {@code i} of a prompt's first choice without a seed is
 * {@link #token(String, int)}; any other is {@link #text(String, Optional, int, int)}'s. A stop
 * string ends the generation after the token that completes it.
 */
public final class SimulatedEngine implements Engine {

  /** The simulated tokenizer: one token per 4 characters of prompt. */
  public static final int CHARS_PER_TOKEN = 4;

  private static final String[] WORDS = {
    "the", "river", "flows", "through", "a", "sluice", "gate", "and", "tokens", "stream",
    "past", "quiet", "stones", "while", "routers", "choose", "replicas", "under", "clear",
    "skies", "of", "light", "water", "moves", "fast", "cold", "deep", "green", "valley", "mill"
  };

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private final Duration ttft;
  private final Duration itl;
  private final BatchSlots batch;
  private final PrefixCache cache;
  /** Counted per token by every stream at once: an adder, not one contended atomic. */
  private final LongAdder generated = new LongAdder();
  private final AtomicLong aborted = new AtomicLong();
  private volatile Fault fault = Fault.NONE;

  /**
   * A fault to simulate, for tests of health checking: the engine reports itself unhealthy, or
   * its health check never answers (a hung engine).
   */
  public enum Fault { NONE, UNHEALTHY, HANG }

  public SimulatedEngine(EngineConfig config) {
    this.ttft = Duration.ofMillis(config.ttftMs());
    this.itl = Duration.ofMillis(config.itlMs());
    this.batch = new BatchSlots(config.maxNumSeqs());
    this.cache =
        new PrefixCache(EngineConfig.BLOCK_TOKENS * CHARS_PER_TOKEN, config.kvCacheBlocks());
  }

  @Override
  public CompletionStage<Done> start() {
    return CompletableFuture.completedFuture(Done.getInstance());
  }

  /**
   * Waits for a batch slot, looks the prompt up in the prefix cache (a hit shortens the time to
   * first token in proportion to the cached share of the prompt), then emits the tokens.
   */
  @Override
  public Source<String, NotUsed> generate(GenerationRequest request) {
    long seed = seed(request.prompt(), request.seed(), request.choice());
    int maxTokens = request.maxTokens();
    return Source.<String, NotUsed>fromMaterializer((materializer, attributes) -> {
      int[] emitted = {0};
      BatchSlots.Admission admission = batch.admit();
      // Admitted at once (a free batch slot), the tokens are this stream's own stages; waiting,
      // they are a stream of their own, materialized once admitted.
      Source<String, NotUsed> tokens = admission.admitted().toCompletableFuture().isDone()
          ? tokens(request, seed)
          : Source.completionStage(admission.admitted().thenApply(admitted -> Done.getInstance()))
              .flatMapConcat(admitted -> tokens(request, seed));
      StopStrings.Matcher stop = new StopStrings(request.stop()).matcher();
      if (!request.stop().isEmpty()) {
        // The token that completes a stop string is the last one generated, as in vLLM.
        tokens = tokens.takeWhile(token -> {
          stop.accept(token);
          return !stop.stopped();
        }, true);
      }
      return tokens.map(token -> {
        emitted[0]++;
        generated.increment();
        return token;
      }).watchTermination((notUsed, done) -> {
        // Pekko's CompletionStage runs even this non-async callback on the common pool (a
        // thread per call on 2 cores): use the stream's own executor.
        done.whenCompleteAsync((d, failure) -> {
          admission.finish();
          if (emitted[0] < maxTokens && !stop.stopped()) {
            aborted.incrementAndGet();
          }
        }, materializer.executionContext());
        return notUsed;
      });
    }).mapMaterializedValue(future -> NotUsed.getInstance());
  }

  private Source<String, NotUsed> tokens(GenerationRequest request, long seed) {
    String prompt = request.prompt();
    int promptTokens = Math.max(1, (prompt.length() + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN);
    Duration firstToken = firstTokenDelay(ttft, cache.lookupAndStore(prompt, promptTokens),
        prompt.length());
    Source<String, NotUsed> tokens =
        Source.range(0, request.maxTokens() - 1).map(i -> token(seed, i));
    if (firstToken.isZero() && itl.isZero()) {
      return tokens;
    }
    return tokens.via(new TokenPacer<>(EngineClock.shared(), firstToken, itl));
  }

  /** TTFT shortened in proportion to the cached share of the prompt. */
  static Duration firstTokenDelay(Duration ttft, int cachedChars, int promptChars) {
    double uncachedShare = promptChars == 0 ? 1 : 1 - (double) cachedChars / promptChars;
    return Duration.ofNanos((long) (ttft.toNanos() * uncachedShare));
  }

  @Override
  public CompletionStage<Boolean> healthy() {
    return switch (fault) {
      case NONE -> CompletableFuture.completedFuture(true);
      case UNHEALTHY -> CompletableFuture.completedFuture(false);
      case HANG -> new CompletableFuture<>();
    };
  }

  /** Simulates {@code fault} from now on ({@link Fault#NONE} heals the engine). */
  public void inject(Fault fault) {
    this.fault = fault;
  }

  @Override
  public EngineStats stats() {
    return new EngineStats(batch.running(), batch.waiting(), generated.sum(), aborted.get(),
        cache.hitRatio(), (double) cache.usedBlocks() / cache.capacityBlocks());
  }

  @Override
  public CompletionStage<Done> stop() {
    return CompletableFuture.completedFuture(Done.getInstance());
  }

  /** Token {@code index} (0-based) of the answer to {@code prompt}. */
  public static String token(String prompt, int index) {
    return token(seed(prompt), index);
  }

  /** The whole answer to {@code prompt} in {@code tokens} tokens. */
  public static String text(String prompt, int tokens) {
    return text(prompt, Optional.empty(), 0, tokens);
  }

  /**
   * The whole text of choice {@code choice} of the answer to {@code prompt} with the client's
   * {@code seed}, in {@code tokens} tokens, before any stop string.
   */
  public static String text(String prompt, Optional<Long> seed, int choice, int tokens) {
    return text(seed(prompt, seed, choice), tokens);
  }

  private static String text(long seed, int tokens) {
    StringBuilder text = new StringBuilder(tokens * 7);
    for (int i = 0; i < tokens; i++) {
      text.append(token(seed, i));
    }
    return text.toString();
  }

  private static String token(long seed, int index) {
    long mixed = (seed + index) * GOLDEN;
    mixed ^= mixed >>> 29;
    String word = WORDS[(int) Long.remainderUnsigned(mixed, WORDS.length)];
    return index == 0 ? word : " " + word;
  }

  /**
   * A seedless request's first choice keeps the prompt's own seed (the text {@link #text(String,
   * int)} promises); a client's seed and a later choice are mixed in whole, so that neither
   * merely shifts the first choice's words by a few places.
   */
  static long seed(String prompt, Optional<Long> seed, int choice) {
    long mixed = seed(prompt);
    if (seed.isPresent()) {
      mixed = mix(mixed ^ mix(seed.get() + GOLDEN));
    }
    if (choice > 0) {
      mixed = mix(mixed + choice * GOLDEN);
    }
    return mixed;
  }

  /** A 64-bit finalizer (the splitmix64 one): every input bit changes about half the output. */
  private static long mix(long value) {
    long z = value;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static long seed(String prompt) {
    long hash = 1125899906842597L;
    for (int i = 0; i < prompt.length(); i++) {
      hash = 31 * hash + prompt.charAt(i);
    }
    return hash;
  }
}
