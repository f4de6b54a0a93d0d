package dev.sluice.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CapacityLedgerTest {

  private static final DeploymentId DEPLOYMENT = new DeploymentId("llm", "m");
  private final CapacityLedger<String> ledger =
      new CapacityLedger<>(new SplittableRandom(3), "inc0");
  private long version = 1;

  private static ReplicaInfo replica(String uid, int capacity) {
    return new ReplicaInfo(new ReplicaId("llm", "m", uid), "node", "127.0.0.1", 1, capacity,
        ReplicaState.RUNNING, List.of("m"));
  }

  private void set(ReplicaInfo... replicas) {
    ledger.sync(new ReplicaSet(DEPLOYMENT, version++, "/", List.of("m"), "capacity-queue",
        Map.of(), List.of(replicas)));
  }

  private Lease acquire() {
    return ledger.tryAcquire(DEPLOYMENT, 0, 0).orElseThrow();
  }

  private CapacitySnapshot.ReplicaCapacity row(String uid) {
    return ledger.snapshot().replicas().stream()
        .filter(r -> r.replicaId().endsWith(uid)).findFirst().orElseThrow();
  }

  @Test
  void grantsTheLeastLoadedReplicaWithUniqueLeaseIds() {
    set(replica("aaaaaaaa", 2), replica("bbbbbbbb", 2));
    List<String> ids = new ArrayList<>();
    Map<String, Integer> perReplica = new HashMap<>();

    for (int i = 0; i < 4; i++) {
      Lease lease = acquire();
      ids.add(lease.id());
      perReplica.merge(lease.replica().id().uniqueId(), 1, Integer::sum);
    }

    assertThat(ids).doesNotHaveDuplicates().allSatisfy(id -> assertThat(id).startsWith("inc0-"));
    assertThat(perReplica).containsEntry("aaaaaaaa", 2).containsEntry("bbbbbbbb", 2);
    assertThat(ledger.tryAcquire(DEPLOYMENT, 0, 0)).isEmpty();
  }

  @Test
  void anExcludedReplicaIsNeverLeasedEvenWhenItIsTheLeastLoaded() {
    set(replica("aaaaaaaa", 4), replica("bbbbbbbb", 4));
    String excluded = new ReplicaId("llm", "m", "aaaaaaaa").toString();
    ledger.tryAcquire(DEPLOYMENT, 0, 0);
    ledger.tryAcquire(DEPLOYMENT, 0, 0);  // one each: a tie

    for (int i = 0; i < 2; i++) {
      assertThat(ledger.tryAcquire(DEPLOYMENT, List.of(excluded), 0, 0).orElseThrow()
          .replica().id().uniqueId()).isEqualTo("bbbbbbbb");
    }
    ledger.tryAcquire(DEPLOYMENT, List.of(excluded), 0, 0);
    assertThat(ledger.tryAcquire(DEPLOYMENT, List.of(excluded), 0, 0)).isEmpty();
    assertThat(acquire().replica().id().uniqueId()).isEqualTo("aaaaaaaa");
  }

  @Test
  void aWaiterThatExcludesAReplicaIsWokenOnlyByAnotherOnesSlot() {
    set(replica("aaaaaaaa", 1), replica("bbbbbbbb", 1));
    Lease onA = acquire();
    Lease onB = acquire();
    ledger.enqueue(DEPLOYMENT, List.of(onA.replica().id().toString()), "waiter", Long.MAX_VALUE);

    ledger.release(onA.id());
    assertThat(ledger.wake(0, 0)).isEmpty();
    ledger.release(onB.id());
    assertThat(ledger.wake(0, 0)).singleElement()
        .satisfies(grant -> assertThat(grant.lease().replica().id())
            .isEqualTo(onB.replica().id()));
  }

  @Test
  void tiesAreBrokenAtRandom() {
    Map<String, Integer> firstPick = new HashMap<>();
    for (int i = 0; i < 200; i++) {
      CapacityLedger<String> fresh = new CapacityLedger<>(new SplittableRandom(i), "x");
      fresh.sync(new ReplicaSet(DEPLOYMENT, 1, "/", List.of("m"), "capacity-queue", Map.of(),
          List.of(replica("aaaaaaaa", 2), replica("bbbbbbbb", 2), replica("cccccccc", 2))));
      firstPick.merge(fresh.tryAcquire(DEPLOYMENT, 0, 0).orElseThrow().replica().id().uniqueId(),
          1, Integer::sum);
    }
    assertThat(firstPick).hasSize(3).allSatisfy((id, count) -> assertThat(count).isGreaterThan(30));
  }

  @Test
  void releaseIsIdempotentAndNeverGoesBelowZero() {
    set(replica("aaaaaaaa", 1));
    Lease lease = acquire();

    assertThat(ledger.release(lease.id())).isTrue();
    assertThat(ledger.release(lease.id())).isFalse();
    assertThat(ledger.release("never-issued")).isFalse();

    assertThat(row("aaaaaaaa").inFlight()).isZero();
    assertThat(ledger.snapshot().unknownReleases()).isEqualTo(2);
    assertThat(ledger.snapshot().released()).isEqualTo(1);
  }

  @Test
  void waitersAreServedFirstComeFirstServed() {
    set(replica("aaaaaaaa", 1));
    Lease held = acquire();
    ledger.enqueue(DEPLOYMENT, "first", Long.MAX_VALUE);
    ledger.enqueue(DEPLOYMENT, "second", Long.MAX_VALUE);
    assertThat(ledger.wake(0, 0)).isEmpty();

    ledger.release(held.id());
    List<CapacityLedger.Grant<String>> grants = ledger.wake(0, 0);

    assertThat(grants).extracting(CapacityLedger.Grant::answer).containsExactly("first");
    ledger.release(grants.get(0).lease().id());
    assertThat(ledger.wake(0, 0)).extracting(CapacityLedger.Grant::answer)
        .containsExactly("second");
    assertThat(ledger.hasWaiters(DEPLOYMENT)).isFalse();
  }

  @Test
  void anExpiredWaiterLeavesTheQueueAndIsNotServedLater() {
    set(replica("aaaaaaaa", 1));
    Lease held = acquire();
    long first = ledger.enqueue(DEPLOYMENT, "first", 0);
    ledger.enqueue(DEPLOYMENT, "second", Long.MAX_VALUE);

    assertThat(ledger.expireWaiter(first)).hasValue("first");
    assertThat(ledger.expireWaiter(first)).isEmpty();
    ledger.release(held.id());

    assertThat(ledger.wake(0, 0)).extracting(CapacityLedger.Grant::answer)
        .containsExactly("second");
  }

  @Test
  void reaperReclaimsLeasesOlderThanTheTtl() {
    set(replica("aaaaaaaa", 2));
    Lease old = ledger.tryAcquire(DEPLOYMENT, 0, 0).orElseThrow();
    Lease young = ledger.tryAcquire(DEPLOYMENT, 4_000, 0).orElseThrow();

    List<Lease> reaped = ledger.reap(5_000, 5_000);

    assertThat(reaped).containsExactly(old);
    assertThat(row("aaaaaaaa").leases()).isEqualTo(1);
    assertThat(ledger.release(old.id())).as("a reaped lease is gone").isFalse();
    assertThat(ledger.release(young.id())).isTrue();
    assertThat(ledger.snapshot().reaped()).isEqualTo(1);
  }

  @Test
  void capacityShrinkBelowInFlightStopsGrantsUntilWorkEnds() {
    set(replica("aaaaaaaa", 3));
    Lease a = acquire();
    acquire();
    acquire();

    set(replica("aaaaaaaa", 1));

    assertThat(row("aaaaaaaa").capacity()).isEqualTo(1);
    assertThat(ledger.tryAcquire(DEPLOYMENT, 0, 0)).isEmpty();
    ledger.release(a.id());
    assertThat(ledger.tryAcquire(DEPLOYMENT, 0, 0)).isEmpty();
  }

  @Test
  void anOlderReplicaSetNeverReplacesANewerOne() {
    set(replica("aaaaaaaa", 1), replica("bbbbbbbb", 1));
    ledger.sync(new ReplicaSet(DEPLOYMENT, 0, "/", List.of("m"), "capacity-queue", Map.of(),
        List.of(replica("aaaaaaaa", 1))));

    assertThat(ledger.snapshot().replicas()).hasSize(2);
  }

  @Test
  void replicaRemovalDropsItsLiveLeases() {
    set(replica("aaaaaaaa", 1), replica("bbbbbbbb", 1));
    Lease first = acquire();
    Lease second = acquire();
    String removed = first.replica().id().uniqueId();

    set(removed.equals("aaaaaaaa") ? replica("bbbbbbbb", 1) : replica("aaaaaaaa", 1));

    assertThat(ledger.snapshot().replicas()).hasSize(1);
    assertThat(ledger.snapshot().leases()).isEqualTo(1);
    assertThat(ledger.release(first.id())).isFalse();
    assertThat(ledger.release(second.id())).isTrue();
  }

  @Test
  void afterARestartCountsAreRebuiltFromTheReplicasOwnReports() {
    ReplicaInfo replica = replica("aaaaaaaa", 4);
    set(replica);
    // A fresh ledger knows no leases: the replica reports 3 ongoing.
    ledger.report(new ReplicaLoad(replica.id(), 3, 0, 4, 0, 0));

    assertThat(row("aaaaaaaa").inFlight()).isEqualTo(3);
    Lease lease = acquire();
    assertThat(ledger.tryAcquire(DEPLOYMENT, 0, 0)).isEmpty();
    // Work finishes on the replica: the next report frees the slots again.
    ledger.report(new ReplicaLoad(replica.id(), 1, 0, 4, 0, 0));
    assertThat(row("aaaaaaaa").inFlight()).isEqualTo(1);
    ledger.release(lease.id());
    ledger.report(new ReplicaLoad(replica.id(), 0, 0, 4, 0, 0));
    assertThat(row("aaaaaaaa").inFlight()).isZero();
  }
}
