package dev.sluice.capacity;

/** Placeholder so the module has a class; the CapacityQueue arrives with its own issue. */
final class CapacityQueueModule {
  private CapacityQueueModule() {}
}
