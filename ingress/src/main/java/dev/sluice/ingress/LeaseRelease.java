package dev.sluice.ingress;

import dev.sluice.capacity.CapacityQueue;
import dev.sluice.ingress.splice.Decision;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Releases one CapacityQueue lease exactly once, whichever of "stream completed", "stream
 * failed", "client went away" or "never sent" happens first. A request without a lease has a
 * no-op release.
 */
final class LeaseRelease implements Decision.Lease {

  static final LeaseRelease NONE = new LeaseRelease(Optional.empty(), Optional.empty());

  private final Optional<ActorRef<CapacityQueue.Command>> queue;
  private final Optional<String> leaseId;
  private final AtomicBoolean done = new AtomicBoolean();

  LeaseRelease(Optional<ActorRef<CapacityQueue.Command>> queue, Optional<String> leaseId) {
    this.queue = queue;
    this.leaseId = leaseId;
  }

  boolean holdsLease() {
    return leaseId.isPresent() && queue.isPresent();
  }

  /** Releases the lease the first time it is called; later calls do nothing. */
  @Override
  public void release() {
    if (holdsLease() && done.compareAndSet(false, true)) {
      queue.get().tell(new CapacityQueue.Release(leaseId.get()));
    }
  }

  /**
   * Keeps the lease on purpose (the replica rejected the leased request): the queue's reaper
   * reclaims it after the TTL, so the queue learns that the replica is really busy.
   */
  @Override
  public void keepUntilTtl() {
    done.set(true);
  }
}
