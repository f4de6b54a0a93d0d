/**
 * Policy {@code round-robin} — the default on the direct-streaming path.
 *
 * <p>Inputs: the candidate list only (no load, session or body). Parameters: none. Each call
 * advances a cursor by one (starting at a random offset per router instance); the answer ranks all
 * candidates in cursor order, one replica per rank.
 *
 * <pre>
 * request_router_config:
 *   request_router_class: round-robin
 * </pre>
 */
package dev.sluice.router.policy.roundrobin;
