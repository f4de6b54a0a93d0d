/**
 * Policy {@code capacity-queue} — capacity leases from the CapacityQueue singleton (DESIGN.md §6).
 *
 * <p>Inputs: the queue's per-replica in-flight counts. Parameters: {@code acquire_timeout_s}
 * (default 0.5: how long one acquire waits in the queue's FIFO), {@code max_faults} (default 3:
 * queue faults before this request falls back to {@code power-of-two}). On the direct-streaming
 * path the lease id travels with the routing answer and the ingress releases it exactly once when
 * the stream completes, fails or the client goes away, so {@code max_ongoing_requests} holds
 * across any number of ingresses. A replica that still rejects a leased request keeps the lease
 * until the TTL on purpose.
 *
 * <pre>
 * request_router_config:
 *   request_router_class: capacity-queue
 *   request_router_kwargs: {acquire_timeout_s: 0.5, max_faults: 3}
 * </pre>
 */
package dev.sluice.router.policy.capacityqueue;
