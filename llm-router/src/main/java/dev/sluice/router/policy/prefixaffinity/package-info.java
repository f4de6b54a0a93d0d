/**
 * Policy {@code prefix-cache-affinity} — KV-cache-aware routing. Needs body forwarding
 * ({@code sluice.ingress.forward-body = on}).
 *
 * <p>Inputs: the prompt text (chat messages joined, or {@code prompt}) and the load view. An
 * approximate prefix tree over prompts (blocks of {@code block_chars} characters, default 64 —
 * one 16-token KV block at 4 characters per token — hashed as a chain, LRU-bounded at
 * {@code max_blocks_per_replica}, default 65,536) remembers which replica served which prefix.
 * The replica with the longest match wins when the match covers at least {@code min_match_ratio}
 * of the prompt (default 0.5); otherwise the least loaded replica. Imbalance guard: if the
 * favourite's load exceeds the least loaded one's by more than {@code imbalance_abs_threshold}
 * (default 32) <em>and</em> by a factor of more than {@code imbalance_rel_threshold} (default
 * 1.5), the least loaded replica wins instead. No prompt (no body, a cut or unparsable body) means
 * no key: least loaded.
 *
 * <pre>
 * request_router_config:
 *   request_router_class: prefix-cache-affinity
 *   request_router_kwargs: {min_match_ratio: 0.5, imbalance_abs_threshold: 32}
 * </pre>
 */
package dev.sluice.router.policy.prefixaffinity;
