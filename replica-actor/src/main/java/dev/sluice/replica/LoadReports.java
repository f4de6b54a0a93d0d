package dev.sluice.replica;

import dev.sluice.core.ReplicaLoad;

/**
 * When a replica reports its load: when it changed, and when requests were admitted since the
 * last report even if the counts look the same. Routers add their own assignments to the last
 * report until the next one; a router that never hears of completions (an external data plane
 * asking {@code POST /internal/route}) relies on that next report to forget them, so a replica
 * busy at a steady count must still report. A quiet replica's heartbeat is its node's
 * ({@link NodeLoadReporter}), which sends every replica's last report again.
 */
final class LoadReports {

  private ReplicaLoad last;
  private long lastAdmitted = -1;

  /** True (and remembered as reported) when {@code load} should be reported now. */
  boolean due(ReplicaLoad load, long admitted) {
    if (load.equals(last) && admitted == lastAdmitted) {
      return false;
    }
    last = load;
    lastAdmitted = admitted;
    return true;
  }
}
