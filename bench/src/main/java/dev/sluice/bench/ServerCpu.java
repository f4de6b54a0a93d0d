package dev.sluice.bench;

import java.util.Map;

/**
 * The CPU time of the processes that serve a comparison's targets (the replica's node, the
 * ingress's node, HAProxy...), by a name per group of processes, so that a side-by-side run can
 * give each target's CPU per delivered token. Only a run that started those processes itself
 * knows them; otherwise {@link #NONE}.
 */
@FunctionalInterface
public interface ServerCpu {

  /** Nothing is measured. */
  ServerCpu NONE = Map::of;

  /**
   * CPU nanoseconds each group has used so far: never decreasing (a process that ended keeps
   * what it used), the same names in the same order at every call.
   */
  Map<String, Long> sample();
}
