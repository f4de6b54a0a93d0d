package dev.sluice.replica.engine;

import dev.sluice.core.config.EngineConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * A deterministic engine for tests, demos and benchmarks: the output depends only on the prompt,
 * the first token comes after {@code ttft_ms}, the next ones every {@code itl_ms} (0 = as fast as
 * the stream pulls). Token {@code i} of a prompt is {@link #token(String, int)}.
 */
public final class SimulatedEngine implements Engine {

  /** The simulated tokenizer: one token per 4 characters of prompt. */
  public static final int CHARS_PER_TOKEN = 4;

  private static final String[] WORDS = {
    "the", "river", "flows", "through", "a", "sluice", "gate", "and", "tokens", "stream",
    "past", "quiet", "stones", "while", "routers", "choose", "replicas", "under", "clear",
    "skies", "of", "light", "water", "moves", "fast", "cold", "deep", "green", "valley", "mill"
  };

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
    this.cache = new PrefixCache(EngineConfig.BLOCK_TOKENS * CHARS_PER_TOKEN, config.kvCacheBlocks());
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
    long seed = seed(request.prompt());
    int maxTokens = request.maxTokens();
    return Source.<String, NotUsed>fromMaterializer((materializer, attributes) -> {
      int[] emitted = {0};
      BatchSlots.Admission admission = batch.admit();
      Source<String, NotUsed> tokens = Source.completionStage(admission.admitted()
              .thenApply(admitted -> Done.getInstance()))
          .flatMapConcat(admitted -> tokens(request, seed));
      return tokens.map(token -> {
        emitted[0]++;
        generated.increment();
        return token;
      }).watchTermination((notUsed, done) -> {
        // Pekko's CompletionStage runs even this non-async callback on the common pool (a
        // thread per call on 2 cores): use the stream's own executor.
        done.whenCompleteAsync((d, failure) -> {
          admission.finish();
          if (emitted[0] < maxTokens) {
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
    if (!itl.isZero()) {
      tokens = tokens.throttle(1, itl);
    }
    if (!firstToken.isZero()) {
      tokens = tokens.initialDelay(firstToken);
    }
    return tokens;
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
    long seed = seed(prompt);
    StringBuilder text = new StringBuilder(tokens * 7);
    for (int i = 0; i < tokens; i++) {
      text.append(token(seed, i));
    }
    return text.toString();
  }

  private static String token(long seed, int index) {
    long mixed = (seed + index) * 0x9E3779B97F4A7C15L;
    mixed ^= mixed >>> 29;
    String word = WORDS[(int) Long.remainderUnsigned(mixed, WORDS.length)];
    return index == 0 ? word : " " + word;
  }

  private static long seed(String prompt) {
    long hash = 1125899906842597L;
    for (int i = 0; i < prompt.length(); i++) {
      hash = 31 * hash + prompt.charAt(i);
    }
    return hash;
  }
}
