/**
 * Policy {@code power-of-two} — the default on the relayed (reserve) path.
 *
 * <p>Inputs: the load view (replica reports plus the router's own assignments; reports older than
 * 10 s are unknown and get probed). Parameters: none. Samples two distinct candidates not known to
 * be full and ranks the shorter queue first.
 *
 * <pre>
 * request_router_config:
 *   request_router_class: power-of-two
 * </pre>
 */
package dev.sluice.router.policy.poweroftwo;
