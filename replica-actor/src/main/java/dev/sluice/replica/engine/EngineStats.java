package dev.sluice.replica.engine;

/**
 * vLLM-like engine statistics.
 *
 * @param running requests generating now (in the batch)
 * @param waiting requests waiting for a batch slot
 * @param generatedTokens tokens generated since start
 * @param aborted requests that ended before their last token (client went away)
 * @param prefixCacheHitRatio prompt tokens served from the prefix cache / prompt tokens (0..1)
 * @param kvCacheUsage KV-cache blocks in use / capacity (0..1)
 * @param ttft the engine's own time-to-first-token histogram, where it exports one (an external
 *     engine reached without its replica's endpoint); else {@link TtftHistogram#NONE}
 */
public record EngineStats(
    int running,
    int waiting,
    long generatedTokens,
    long aborted,
    double prefixCacheHitRatio,
    double kvCacheUsage,
    TtftHistogram ttft) {

  /** Statistics without a TTFT histogram of the engine's own. */
  public EngineStats(int running, int waiting, long generatedTokens, long aborted,
      double prefixCacheHitRatio, double kvCacheUsage) {
    this(running, waiting, generatedTokens, aborted, prefixCacheHitRatio, kvCacheUsage,
        TtftHistogram.NONE);
  }

  /** These statistics with {@code histogram} as the engine's own TTFT histogram. */
  public EngineStats withTtft(TtftHistogram histogram) {
    return new EngineStats(running, waiting, generatedTokens, aborted, prefixCacheHitRatio,
        kvCacheUsage, histogram);
  }
}
