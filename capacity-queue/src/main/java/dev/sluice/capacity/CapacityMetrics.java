package dev.sluice.capacity;

import dev.sluice.core.metrics.SluiceMetrics;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Gauge;
import java.util.HashSet;
import java.util.Set;

/**
 * The queue's metrics: in-flight and capacity per replica, leases granted, released and reaped,
 * waiters, acquire wait.
 */
final class CapacityMetrics {

  private static final double[] WAIT_SECONDS = {0.0001, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1,
      0.25, 0.5, 1, 2.5};

  private final Gauge inFlight;
  private final Gauge capacity;
  private final CounterDataPoint reaped;
  private final CounterDataPoint exhausted;
  private final DistributionDataPoint wait;
  private final CounterDataPoint granted;
  private final CounterDataPoint released;
  private final io.prometheus.metrics.core.datapoints.GaugeDataPoint waiters;
  private Set<String> shown = new HashSet<>();

  CapacityMetrics(SluiceMetrics metrics) {
    this.inFlight = metrics.gauge("capacity_in_flight",
        "Work the CapacityQueue counts as in flight per replica (leases + untracked).", "replica");
    this.capacity = metrics.gauge("capacity_capacity",
        "max_ongoing_requests per replica as the CapacityQueue knows it.", "replica");
    this.reaped = metrics.counter("capacity_leases_reaped_total",
        "Leases reclaimed by the TTL reaper (lost releases, or kept after a rejection).")
        .labelValues();
    this.exhausted = metrics.counter("capacity_exhausted_total",
        "Acquires answered 'exhausted' (no spare capacity within the acquire timeout).")
        .labelValues();
    this.wait = metrics.histogram("capacity_acquire_wait_seconds",
        "Time an acquire waited for a lease.", WAIT_SECONDS).labelValues();
    var leases = metrics.counter("capacity_leases_total",
        "Leases by outcome: granted, or released by the ingress that held them.", "outcome");
    this.granted = leases.labelValues("granted");
    this.released = leases.labelValues("released");
    this.waiters = metrics.gauge("capacity_waiters",
        "Acquires waiting for a slot to free up (up to their acquire timeout).").labelValues();
  }

  void granted(long waitedNanos) {
    wait.observe(waitedNanos / 1e9);
    granted.inc();
  }

  void released() {
    released.inc();
  }

  void waiters(int count) {
    waiters.set(count);
  }

  void exhausted() {
    exhausted.inc();
  }

  void reaped(int count) {
    reaped.inc(count);
  }

  /** Drops the per-replica gauges (the queue stopped). */
  void forget() {
    for (String gone : shown) {
      inFlight.remove(gone);
      capacity.remove(gone);
    }
    shown = new HashSet<>();
    waiters.set(0);
  }

  void update(CapacitySnapshot snapshot) {
    Set<String> now = new HashSet<>();
    for (CapacitySnapshot.ReplicaCapacity replica : snapshot.replicas()) {
      inFlight.labelValues(replica.replicaId()).set(replica.inFlight());
      capacity.labelValues(replica.replicaId()).set(replica.capacity());
      now.add(replica.replicaId());
    }
    for (String gone : shown) {
      if (!now.contains(gone)) {
        inFlight.remove(gone);
        capacity.remove(gone);
      }
    }
    shown = now;
  }
}
