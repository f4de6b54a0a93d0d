/**
 * The CapacityQueue singleton (DESIGN.md §6): one authority that counts in-flight work per
 * replica and hands out capacity leases, so that several ingresses or routers with slightly stale
 * views cannot all pick the same "free" replica at once.
 */
package dev.sluice.capacity;
