package dev.sluice.router.load;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.router.spi.LoadView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The router's load knowledge: per replica its last reported ongoing count (or a probe's or
 * reservation's answer) plus the router's own assignments since then. A report older than {@code staleAfter} is unknown; a replica asked
 * about while unknown is queued for a probe, whose deadline starts at 100 ms and doubles on every
 * failure up to 1 s. Single-threaded (the router actor).
 */
public final class LoadTracker implements LoadView {

  public static final Duration STALE_AFTER = Duration.ofSeconds(10);
  static final long FIRST_PROBE_DEADLINE = Duration.ofMillis(100).toNanos();
  static final long MAX_PROBE_DEADLINE = Duration.ofSeconds(1).toNanos();

  private final LongSupplier clock;
  private final long staleNanos;
  private final Map<ReplicaId, Entry> entries = new HashMap<>();
  private final Map<ReplicaId, ReplicaInfo> wanted = new LinkedHashMap<>();

  private static final class Entry {
    int ongoing;
    int waiting;
    long reportedAt;
    boolean reported;
    int assigned;
    boolean probing;
    long probeDeadline = FIRST_PROBE_DEADLINE;
  }

  public LoadTracker(LongSupplier clock, Duration staleAfter) {
    this.clock = clock;
    this.staleNanos = staleAfter.toNanos();
  }

  public LoadTracker() {
    this(System::nanoTime, STALE_AFTER);
  }

  @Override
  public OptionalInt queueLength(ReplicaInfo replica) {
    Entry entry = entries.get(replica.id());
    if (!fresh(entry, clock.getAsLong())) {
      wanted.putIfAbsent(replica.id(), replica);
      return OptionalInt.empty();
    }
    return OptionalInt.of(length(entry));
  }

  @Override
  public int estimatedLoad(ReplicaInfo replica) {
    return estimate(replica, entries.get(replica.id()), clock.getAsLong());
  }

  @Override
  public void estimatedLoads(List<ReplicaInfo> replicas, int[] out) {
    long now = clock.getAsLong();
    for (int i = 0; i < replicas.size(); i++) {
      ReplicaInfo replica = replicas.get(i);
      out[i] = estimate(replica, entries.get(replica.id()), now);
    }
  }

  private int estimate(ReplicaInfo replica, Entry entry, long now) {
    if (fresh(entry, now)) {
      return length(entry);
    }
    wanted.putIfAbsent(replica.id(), replica);
    return entry == null ? 0 : entry.assigned;
  }

  private boolean fresh(Entry entry, long now) {
    return entry != null && entry.reported && now - entry.reportedAt <= staleNanos;
  }

  /** Ongoing already counts requests waiting in the engine (they hold a slot). */
  private static int length(Entry entry) {
    return entry.ongoing + entry.assigned;
  }

  /** A replica's own report: replaces what was known, including the router's assignments. */
  public void onReport(ReplicaLoad load) {
    observed(load.replica(), load.ongoing(), load.waiting());
  }

  /** A fresh count from a probe or a reservation answer. */
  public void observed(ReplicaId replica, int ongoing, int waiting) {
    Entry entry = entry(replica);
    entry.ongoing = ongoing;
    entry.waiting = waiting;
    entry.reportedAt = clock.getAsLong();
    entry.reported = true;
    entry.assigned = 0;
    entry.probing = false;
    entry.probeDeadline = FIRST_PROBE_DEADLINE;
  }

  public void onAssigned(ReplicaId replica) {
    entry(replica).assigned++;
  }

  public void onCompleted(ReplicaId replica) {
    Entry entry = entries.get(replica);
    if (entry != null && entry.assigned > 0) {
      entry.assigned--;
    }
  }

  /** Forgets replicas that are no longer in any replica set. */
  public void retain(Set<ReplicaId> live) {
    entries.keySet().retainAll(live);
    wanted.keySet().retainAll(live);
  }

  /** Replicas to probe now (asked about while unknown, no probe running); marks them probing. */
  public List<ReplicaInfo> takeProbeRequests() {
    if (wanted.isEmpty()) {
      return List.of();
    }
    List<ReplicaInfo> probes = new ArrayList<>(wanted.size());
    for (ReplicaInfo replica : wanted.values()) {
      Entry entry = entry(replica.id());
      if (!entry.probing) {
        entry.probing = true;
        probes.add(replica);
      }
    }
    wanted.clear();
    return probes;
  }

  /** The deadline for the next probe of this replica. */
  public Duration probeDeadline(ReplicaId replica) {
    return Duration.ofNanos(entry(replica).probeDeadline);
  }

  /** A probe got no answer in time: the next one waits twice as long (at most 1 s). */
  public void onProbeFailed(ReplicaId replica) {
    Entry entry = entries.get(replica);
    if (entry != null) {
      entry.probing = false;
      entry.probeDeadline = Math.min(entry.probeDeadline * 2, MAX_PROBE_DEADLINE);
    }
  }

  private Entry entry(ReplicaId replica) {
    return entries.computeIfAbsent(replica, id -> new Entry());
  }
}
