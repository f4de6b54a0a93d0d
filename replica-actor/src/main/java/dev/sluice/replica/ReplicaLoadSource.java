package dev.sluice.replica;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.replica.engine.Engine;
import dev.sluice.replica.http.Slots;

/**
 * A running replica's load as its node's {@link NodeLoadReporter} reads it: the replica's slots
 * and its engine's own counts (both safe to read from any thread), the replica's gauges set from
 * them on the way. Closed when the replica stops, before its gauges are dropped: a read that comes
 * later (the reporter has not heard yet) finds nothing and sets no gauge again.
 */
final class ReplicaLoadSource implements NodeLoadReporter.LoadSource {

  private final ReplicaId id;
  private final Engine engine;
  private final Slots slots;
  private final ReplicaMetrics metrics;
  private final LoadReports reports = new LoadReports();
  private boolean closed;

  ReplicaLoadSource(ReplicaId id, Engine engine, Slots slots, ReplicaMetrics metrics) {
    this.id = id;
    this.engine = engine;
    this.slots = slots;
    this.metrics = metrics;
  }

  @Override
  public synchronized ReplicaLoad dueLoad() {
    if (closed) {
      return null;
    }
    var stats = engine.stats();
    metrics.update(slots.ongoing(), slots.limit(), stats);
    // An external engine reached directly holds requests the replica's slots never see: its own
    // running count says how many.
    int ongoing = Math.max(slots.ongoing(), stats.running());
    ReplicaLoad load = new ReplicaLoad(id, ongoing, stats.waiting(), slots.limit(),
        stats.prefixCacheHitRatio(), stats.kvCacheUsage());
    return reports.due(load, slots.admitted()) ? load : null;
  }

  /** The replica stopped: no read sets its gauges from now on (one under way has finished). */
  synchronized void close() {
    closed = true;
  }
}
