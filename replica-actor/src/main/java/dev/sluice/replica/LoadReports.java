package dev.sluice.replica;

import dev.sluice.core.ReplicaLoad;
import java.time.Duration;

/**
 * When a replica publishes its load: when it changed, when requests were admitted since the last
 * report even if the counts look the same, and as a heartbeat. Routers add their own assignments
 * to the last report until the next one; a router that never hears of completions (an external
 * data plane asking {@code POST /internal/route}) relies on that next report to forget them, so a
 * replica busy at a steady count must still report, or those assignments pile up for a whole
 * heartbeat and make it look full.
 */
final class LoadReports {

  private final long heartbeatNanos;
  private ReplicaLoad last;
  private long lastAdmitted = -1;
  private long lastNanos;

  LoadReports(Duration heartbeat) {
    this.heartbeatNanos = heartbeat.toNanos();
  }

  /** True (and remembered as reported) when {@code load} should be published now. */
  boolean due(ReplicaLoad load, long admitted, long nowNanos) {
    if (load.equals(last) && admitted == lastAdmitted && nowNanos - lastNanos < heartbeatNanos) {
      return false;
    }
    last = load;
    lastAdmitted = admitted;
    lastNanos = nowNanos;
    return true;
  }
}
