/**
 * The ingress's edge policy, one implementation for every data path (the splice and the relayed
 * path's Pekko HTTP server): which request id a request gets, which client header is the session,
 * how long the router may take, what part of the body the router sees, which fields are
 * hop-by-hop, how a failed replica is answered, which API keys are accepted, and the answers made
 * here ({@link dev.sluice.ingress.edge.Answer}), whose header values can never carry a line
 * break or a byte the next parser could read differently.
 */
package dev.sluice.ingress.edge;
