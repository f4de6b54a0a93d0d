package dev.sluice.controller;

import dev.sluice.core.ReplicaId;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Each replica's load (ongoing plus queued requests) over time, from its load reports, for the
 * autoscaler: a time-weighted average over a look-back window (a report holds until the next
 * one), so a replica that reports often does not weigh more than one that reports on change.
 * Each replica keeps only the samples of its window: a replica reports up to 20 times a second
 * under load, for as long as it runs.
 */
final class LoadHistory {

  private record Sample(long nanos, int load) {}

  private final Map<ReplicaId, ArrayDeque<Sample>> samples = new HashMap<>();

  /** A report at {@code nanos}; samples wholly before {@code [nanos - window]} are dropped. */
  void record(ReplicaId replica, long nanos, int load, long windowNanos) {
    ArrayDeque<Sample> series = samples.computeIfAbsent(replica, id -> new ArrayDeque<>());
    series.addLast(new Sample(nanos, load));
    prune(series, nanos - windowNanos);
  }

  /** How many samples {@code replica} keeps. */
  int size(ReplicaId replica) {
    ArrayDeque<Sample> series = samples.get(replica);
    return series == null ? 0 : series.size();
  }

  void forget(ReplicaId replica) {
    samples.remove(replica);
  }

  /** The average load of {@code replica} over {@code [now - window, now]}; 0 with no report. */
  double average(ReplicaId replica, long now, long windowNanos) {
    ArrayDeque<Sample> series = samples.get(replica);
    if (series == null || series.isEmpty()) {
      return 0;
    }
    long start = now - windowNanos;
    prune(series, start);
    double weighted = 0;
    long covered = 0;
    Iterator<Sample> it = series.iterator();
    Sample current = it.next();
    while (current != null) {
      Sample next = it.hasNext() ? it.next() : null;
      long from = Math.max(current.nanos(), start);
      long to = next == null ? now : next.nanos();
      if (to > from) {
        weighted += (double) current.load() * (to - from);
        covered += to - from;
      }
      current = next;
    }
    return covered == 0 ? series.peekLast().load() : weighted / covered;
  }

  /** Drops samples wholly before the window, keeping the one in force at its start. */
  private static void prune(ArrayDeque<Sample> series, long start) {
    while (series.size() > 1) {
      Iterator<Sample> it = series.iterator();
      it.next();
      if (it.next().nanos() <= start) {
        series.pollFirst();
      } else {
        return;
      }
    }
  }
}
