/**
 * The CapacityQueue singleton (DESIGN.md §6): per-replica in-flight counts and capacity leases.
 * Not implemented yet; this module is the place it will live.
 */
package dev.sluice.capacity;
