package dev.sluice.capacity;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.ReplicaSet;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The queue's state machine, without an actor (so it is tested directly). Per replica: capacity
 * ({@code max_ongoing_requests}), leases held, and "untracked" work the replica reported beyond
 * the leases (how counts are rebuilt after a restart). Per deployment: waiters in FIFO order.
 * Times are passed in (nanoseconds), so tests control them.
 *
 * @param <W> how a waiter is answered (an actor ref in the queue)
 */
final class CapacityLedger<W> {

  private static final class Slot {
    ReplicaInfo info;
    int capacity;
    int leases;
    int untracked;

    int inFlight() {
      return leases + untracked;
    }
  }

  private record Held(Lease lease, ReplicaId replica, long issuedAtNanos) {}

  private record Waiter<W>(long id, W answer, long deadlineNanos, List<String> excluded) {}

  /** A waiter that got a lease. */
  record Grant<W>(long waiterId, W answer, Lease lease) {}

  private final RandomGenerator random;
  private final String incarnation;
  private long nextLease;
  private long nextWaiter;
  private final Map<ReplicaId, Slot> replicas = new LinkedHashMap<>();
  private final Map<String, Held> leases = new HashMap<>();
  private final Map<DeploymentId, Long> versions = new HashMap<>();
  private final Map<DeploymentId, ArrayDeque<Waiter<W>>> waiters = new HashMap<>();
  private long granted;
  private long released;
  private long reaped;
  private long unknownReleases;

  /** @param incarnation unique per queue start, so lease ids never repeat across restarts */
  CapacityLedger(RandomGenerator random, String incarnation) {
    this.random = random;
    this.incarnation = incarnation;
  }

  /**
   * Follows a deployment's replica set (newer versions only): new replicas are registered, removed ones dropped with
   * their leases, capacity edits applied at once (a shrink below the in-flight count just stops
   * new grants until enough work ends).
   */
  void sync(ReplicaSet set) {
    Long applied = versions.get(set.deployment());
    if (applied != null && applied >= set.version()) {
      return;
    }
    versions.put(set.deployment(), set.version());
    Map<ReplicaId, ReplicaInfo> current = new HashMap<>();
    set.replicas().forEach(r -> current.put(r.id(), r));
    for (Iterator<Map.Entry<ReplicaId, Slot>> it = replicas.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<ReplicaId, Slot> entry = it.next();
      if (entry.getKey().deploymentId().equals(set.deployment())
          && !current.containsKey(entry.getKey())) {
        it.remove();
        leases.values().removeIf(held -> held.replica().equals(entry.getKey()));
      }
    }
    for (ReplicaInfo info : set.replicas()) {
      Slot slot = replicas.computeIfAbsent(info.id(), id -> new Slot());
      slot.info = info;
      slot.capacity = info.maxOngoingRequests();
    }
  }

  /** A replica's own count: work beyond the leases the queue knows of is "untracked". */
  void report(ReplicaLoad load) {
    Slot slot = replicas.get(load.replica());
    if (slot != null) {
      slot.untracked = Math.max(0, load.ongoing() - slot.leases);
    }
  }

  /** A lease on the least-loaded replica with spare capacity (ties at random), if any. */
  Optional<Lease> tryAcquire(DeploymentId deployment, long nowNanos, long nowMillis) {
    return tryAcquire(deployment, List.of(), nowNanos, nowMillis);
  }

  /** The same, never on a replica whose id is in {@code excluded}. */
  Optional<Lease> tryAcquire(DeploymentId deployment, List<String> excluded, long nowNanos,
      long nowMillis) {
    Slot best = null;
    int ties = 0;
    for (Slot slot : replicas.values()) {
      if (!slot.info.id().deploymentId().equals(deployment) || slot.inFlight() >= slot.capacity
          || excluded.contains(slot.info.id().toString())) {
        continue;
      }
      if (best == null || slot.inFlight() < best.inFlight()) {
        best = slot;
        ties = 1;
      } else if (slot.inFlight() == best.inFlight() && random.nextInt(++ties) == 0) {
        best = slot;
      }
    }
    if (best == null) {
      return Optional.empty();
    }
    best.leases++;
    granted++;
    Lease lease = new Lease(incarnation + "-" + (nextLease++), best.info, nowMillis);
    leases.put(lease.id(), new Held(lease, best.info.id(), nowNanos));
    return Optional.of(lease);
  }

  /** Frees a lease; a second release, or an unknown id, changes nothing (it is counted). */
  boolean release(String leaseId) {
    Held held = leases.remove(leaseId);
    if (held == null) {
      unknownReleases++;
      return false;
    }
    Slot slot = replicas.get(held.replica());
    if (slot != null && slot.leases > 0) {
      slot.leases--;
    }
    released++;
    return true;
  }

  /** Reclaims leases older than the TTL (lost releases, or kept on purpose after a rejection). */
  List<Lease> reap(long nowNanos, long ttlNanos) {
    List<Lease> expired = new ArrayList<>();
    for (Iterator<Held> it = leases.values().iterator(); it.hasNext(); ) {
      Held held = it.next();
      if (nowNanos - held.issuedAtNanos() >= ttlNanos) {
        it.remove();
        Slot slot = replicas.get(held.replica());
        if (slot != null && slot.leases > 0) {
          slot.leases--;
        }
        expired.add(held.lease());
        reaped++;
      }
    }
    return expired;
  }

  /** Queues a waiter behind the earlier ones of its deployment; returns its id. */
  long enqueue(DeploymentId deployment, W answer, long deadlineNanos) {
    return enqueue(deployment, List.of(), answer, deadlineNanos);
  }

  /** The same, for a waiter that must not get a slot on the {@code excluded} replicas. */
  long enqueue(DeploymentId deployment, List<String> excluded, W answer, long deadlineNanos) {
    long id = nextWaiter++;
    waiters.computeIfAbsent(deployment, d -> new ArrayDeque<>())
        .add(new Waiter<>(id, answer, deadlineNanos, excluded));
    return id;
  }

  /** Grants leases to waiters, first come first served, while capacity lasts. */
  List<Grant<W>> wake(long nowNanos, long nowMillis) {
    List<Grant<W>> grants = new ArrayList<>();
    for (Map.Entry<DeploymentId, ArrayDeque<Waiter<W>>> entry : waiters.entrySet()) {
      ArrayDeque<Waiter<W>> queue = entry.getValue();
      while (!queue.isEmpty()) {
        Optional<Lease> lease = tryAcquire(entry.getKey(), queue.peek().excluded(), nowNanos,
            nowMillis);
        if (lease.isEmpty()) {
          break;
        }
        Waiter<W> first = queue.poll();
        grants.add(new Grant<>(first.id(), first.answer(), lease.get()));
      }
    }
    return grants;
  }

  /** Removes a waiter whose time ran out; empty if it was already served. */
  Optional<W> expireWaiter(long waiterId) {
    for (ArrayDeque<Waiter<W>> queue : waiters.values()) {
      for (Iterator<Waiter<W>> it = queue.iterator(); it.hasNext(); ) {
        Waiter<W> waiter = it.next();
        if (waiter.id() == waiterId) {
          it.remove();
          return Optional.of(waiter.answer());
        }
      }
    }
    return Optional.empty();
  }

  /** Whether a deployment has waiters (a new acquirer must queue behind them: FIFO). */
  boolean hasWaiters(DeploymentId deployment) {
    ArrayDeque<Waiter<W>> queue = waiters.get(deployment);
    return queue != null && !queue.isEmpty();
  }

  CapacitySnapshot snapshot() {
    List<CapacitySnapshot.ReplicaCapacity> rows = new ArrayList<>();
    for (Slot slot : replicas.values()) {
      rows.add(new CapacitySnapshot.ReplicaCapacity(slot.info.id().toString(), slot.capacity,
          slot.leases, slot.untracked));
    }
    int waiting = waiters.values().stream().mapToInt(ArrayDeque::size).sum();
    return new CapacitySnapshot(rows, leases.size(), waiting, granted, released, reaped,
        unknownReleases);
  }
}
