package dev.sluice.core;

/** Lifecycle of a replica as the controller tracks it (DESIGN.md §4). */
public enum ReplicaState {
  STARTING,
  RUNNING,
  DRAINING,
  STOPPING,
  UNHEALTHY;

  /** Whether the replica takes new requests in this state. */
  public boolean acceptsRequests() {
    return this == RUNNING;
  }
}
