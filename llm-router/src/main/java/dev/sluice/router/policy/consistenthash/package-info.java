/**
 * Policy {@code consistent-hash} — session affinity.
 *
 * <p>Inputs: the session header (default {@code x-session-id}), else the request id. Parameters:
 * {@code num_virtual_nodes} (default 100, &gt; 0) points per replica at
 * {@code murmur3_x64_128("<unique-id>:<i>", seed 0xF9B4CA77)} (low 64 bits, unsigned) on a sorted
 * ring; {@code num_fallback_replicas} (default 2, &ge; 0) distinct clockwise successors after the
 * primary. The pick-only (direct-streaming) path uses the primary only; the reserve path walks
 * primary then successors. With 0 fallbacks a full primary means a 503, never a move.
 *
 * <pre>
 * request_router_config:
 *   request_router_class: consistent-hash
 *   request_router_kwargs: {num_virtual_nodes: 100, num_fallback_replicas: 2}
 * </pre>
 */
package dev.sluice.router.policy.consistenthash;
