package dev.sluice.replica.engine;

/**
 * vLLM-like engine statistics.
 *
 * @param running requests currently generating
 * @param generatedTokens tokens generated since start
 * @param aborted requests aborted before their last token (client went away)
 */
public record EngineStats(int running, long generatedTokens, long aborted) {}
