package dev.sluice.core.config;

import java.util.Objects;

/**
 * How a replica generates tokens. Only {@code simulated} exists so far.
 *
 * @param ttftMs simulated time to first token, milliseconds
 * @param itlMs simulated inter-token latency, milliseconds (0 = as fast as possible)
 * @param defaultMaxTokens output length when a request gives no {@code max_tokens}
 * @param maxModelLen upper bound for {@code max_tokens}
 * @param maxNumSeqs requests the engine generates for at once (its batch); more wait
 * @param kvCacheBlocks KV-cache capacity in blocks of {@link #BLOCK_TOKENS} tokens, shared by the
 *     prefix cache (LRU eviction)
 */
public record EngineConfig(
    String type, int ttftMs, int itlMs, int defaultMaxTokens, int maxModelLen, int maxNumSeqs,
    int kvCacheBlocks) {

  /** Tokens per KV-cache block (vLLM's default). */
  public static final int BLOCK_TOKENS = 16;

  public static final String SIMULATED = "simulated";

  public EngineConfig {
    Objects.requireNonNull(type, "type");
  }

  public static EngineConfig simulated(int ttftMs, int itlMs, int defaultMaxTokens) {
    return new EngineConfig(SIMULATED, ttftMs, itlMs, defaultMaxTokens, 32768, 256, 4096);
  }
}
