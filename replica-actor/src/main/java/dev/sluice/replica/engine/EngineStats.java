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
 */
public record EngineStats(
    int running,
    int waiting,
    long generatedTokens,
    long aborted,
    double prefixCacheHitRatio,
    double kvCacheUsage) {}
