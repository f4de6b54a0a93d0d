package dev.sluice.capacity;

import static dev.sluice.core.testing.Properties.forAll;
import static dev.sluice.core.testing.Properties.size;
import static dev.sluice.core.testing.Properties.between;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaState;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The ledger against a model of it, over random operation sequences on two deployments: replica
 * sets changing (replicas added, removed, resized), acquires, waiters woken, releases (twice, of
 * reaped or dropped leases, of ids never issued) and reaping after the TTL. After every step the
 * ledger's counts are exactly the model's, waiters are served first come first served, and no
 * grant ever lands on a replica at capacity.
 */
class CapacityLedgerPropertiesTest {

  private static final List<DeploymentId> DEPLOYMENTS =
      List.of(new DeploymentId("llm", "a"), new DeploymentId("llm", "b"));
  private static final List<String> UNIQUE_IDS =
      List.of("aaaaaaaa", "bbbbbbbb", "cccccccc", "dddddddd");
  private static final long TTL = 1_000;
  private static final List<String> NEVER_ISSUED =
      List.of("never-issued", "inc0-999", "", "inc0-");

  sealed interface Op permits Sync, Acquire, Release, ReleaseUnknown, Reap, Enqueue, Wake {}

  /** Replica {@code i} of the deployment is present when bit {@code i} is set. */
  record Sync(int deployment, int present, List<Integer> capacities) implements Op {}

  record Acquire(int deployment, long advance) implements Op {}

  /** Releases the {@code pick}-th lease ever issued (live, released, reaped or dropped). */
  record Release(int pick) implements Op {}

  record ReleaseUnknown(String id) implements Op {}

  record Reap(long advance) implements Op {}

  record Enqueue(int deployment) implements Op {}

  record Wake(long advance) implements Op {}

  /**
   * Up to 80 operations: syncs, acquires, releases, unknown releases, reaps, enqueues and wakes,
   * 2:6:5:1:1:1:1.
   */
  private static List<Op> operations(SplittableRandom random) {
    int count = size(random, 0, 80);
    List<Op> ops = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int roll = random.nextInt(17);
      if (roll < 2) {
        List<Integer> capacities = new ArrayList<>(UNIQUE_IDS.size());
        for (int r = 0; r < UNIQUE_IDS.size(); r++) {
          capacities.add(between(random, 1, 4));
        }
        ops.add(new Sync(deployment(random), between(random, 0, (1 << UNIQUE_IDS.size()) - 1),
            capacities));
      } else if (roll < 8) {
        ops.add(new Acquire(deployment(random), advance(random)));
      } else if (roll < 13) {
        ops.add(new Release(between(random, 0, 40)));
      } else if (roll < 14) {
        ops.add(new ReleaseUnknown(NEVER_ISSUED.get(random.nextInt(NEVER_ISSUED.size()))));
      } else if (roll < 15) {
        ops.add(new Reap(advance(random)));
      } else if (roll < 16) {
        ops.add(new Enqueue(deployment(random)));
      } else {
        ops.add(new Wake(advance(random)));
      }
    }
    return ops;
  }

  private static int deployment(SplittableRandom random) {
    return between(random, 0, DEPLOYMENTS.size() - 1);
  }

  /** Quarter-TTL steps, so that leases exactly at the TTL occur often. */
  private static long advance(SplittableRandom random) {
    return between(random, 0, 4) * TTL / 4;
  }

  /** What the ledger should hold. */
  private static final class Model {
    final Map<ReplicaId, Integer> capacity = new HashMap<>();
    final Map<String, ReplicaId> live = new HashMap<>();
    final Map<String, Long> issuedAt = new HashMap<>();
    final List<String> issued = new ArrayList<>();
    final List<ArrayDeque<Long>> waiters =
        List.of(new ArrayDeque<>(), new ArrayDeque<>());
    final long[] versions = new long[DEPLOYMENTS.size()];
    long now;

    long held(ReplicaId replica) {
      return live.values().stream().filter(replica::equals).count();
    }

    List<ReplicaId> replicasOf(DeploymentId deployment) {
      return capacity.keySet().stream().filter(r -> r.deploymentId().equals(deployment))
          .toList();
    }

    long freeSlots(DeploymentId deployment) {
      return replicasOf(deployment).stream()
          .mapToLong(r -> Math.max(0, capacity.get(r) - held(r))).sum();
    }
  }

  private static ReplicaInfo replica(DeploymentId deployment, String uid, int capacity) {
    return new ReplicaInfo(new ReplicaId(deployment.app(), deployment.name(), uid), "node",
        "127.0.0.1", 1, capacity, ReplicaState.RUNNING, List.of(deployment.name()));
  }

  @Test
  void countsMatchTheLiveLeasesAndNoGrantExceedsCapacity() {
    forAll(200, random -> {
      List<Op> ops = operations(random);
      CapacityLedger<Integer> ledger = new CapacityLedger<>(random.split(), "inc0");
      Model model = new Model();

      for (int step = 0; step < ops.size(); step++) {
        try {
          apply(ledger, model, ops.get(step));
        } catch (AssertionError | RuntimeException e) {
          throw new AssertionError("step " + step + " of " + ops + ": " + e.getMessage(), e);
        }
      }
    });
  }

  /** Applies {@code op} to the ledger and to the model, then compares them. */
  private static void apply(CapacityLedger<Integer> ledger, Model model, Op op) {
    Map<String, CapacitySnapshot.ReplicaCapacity> before = rows(ledger);
    if (op instanceof Sync sync) {
      applySync(ledger, model, sync);
    } else if (op instanceof Acquire acquire) {
      model.now += acquire.advance();
      DeploymentId deployment = DEPLOYMENTS.get(acquire.deployment());
      boolean expectGrant = model.freeSlots(deployment) > 0;
      Optional<Lease> lease = ledger.tryAcquire(deployment, model.now, 0);
      assertThat(lease.isPresent()).as("a lease iff a replica has room").isEqualTo(expectGrant);
      lease.ifPresent(granted -> grant(model, granted, deployment));
    } else if (op instanceof Release release) {
      if (!model.issued.isEmpty()) {
        String id = model.issued.get(release.pick() % model.issued.size());
        boolean wasLive = model.live.remove(id) != null;
        assertThat(ledger.release(id)).isEqualTo(wasLive);
        if (!wasLive) {
          assertThat(rows(ledger)).as("a second release changes nothing").isEqualTo(before);
        }
      }
    } else if (op instanceof ReleaseUnknown unknown) {
      assertThat(ledger.release(unknown.id())).isFalse();
      assertThat(rows(ledger)).isEqualTo(before);
    } else if (op instanceof Reap reap) {
      model.now += reap.advance();
      Set<String> expired = model.live.keySet().stream()
          .filter(id -> model.now - model.issuedAt.get(id) >= TTL).collect(Collectors.toSet());
      List<Lease> reaped = ledger.reap(model.now, TTL);
      assertThat(reaped.stream().map(Lease::id)).containsExactlyInAnyOrderElementsOf(expired);
      model.live.keySet().removeAll(expired);
    } else if (op instanceof Enqueue enqueue) {
      model.waiters.get(enqueue.deployment()).add(ledger.enqueue(
          DEPLOYMENTS.get(enqueue.deployment()), enqueue.deployment(), Long.MAX_VALUE));
    } else if (op instanceof Wake wake) {
      model.now += wake.advance();
      long[] expected = new long[DEPLOYMENTS.size()];
      for (int d = 0; d < expected.length; d++) {
        expected[d] = Math.min(model.waiters.get(d).size(),
            model.freeSlots(DEPLOYMENTS.get(d)));
      }
      List<CapacityLedger.Grant<Integer>> grants = ledger.wake(model.now, 0);
      for (CapacityLedger.Grant<Integer> g : grants) {
        DeploymentId deployment = DEPLOYMENTS.get(g.answer());
        assertThat(g.lease().replica().id().deploymentId()).isEqualTo(deployment);
        grant(model, g.lease(), deployment);
        assertThat(g.waiterId()).as("first come, first served")
            .isEqualTo(model.waiters.get(g.answer()).poll());
        expected[g.answer()]--;
      }
      assertThat(expected).as("waiters served while capacity lasts").containsOnly(0L);
    }
    checkAgainstModel(ledger, model, before);
  }

  private static void applySync(CapacityLedger<Integer> ledger, Model model, Sync sync) {
    DeploymentId deployment = DEPLOYMENTS.get(sync.deployment());
    List<ReplicaInfo> replicas = new ArrayList<>();
    for (int i = 0; i < UNIQUE_IDS.size(); i++) {
      if ((sync.present() & (1 << i)) != 0) {
        replicas.add(replica(deployment, UNIQUE_IDS.get(i), sync.capacities().get(i)));
      }
    }
    long version = ++model.versions[sync.deployment()];
    ledger.sync(new ReplicaSet(deployment, version, "/", List.of(deployment.name()),
        "capacity-queue", Map.of(), replicas));
    Set<ReplicaId> present = new HashSet<>();
    for (ReplicaInfo info : replicas) {
      present.add(info.id());
      model.capacity.put(info.id(), info.maxOngoingRequests());
    }
    model.capacity.keySet().removeIf(r -> r.deploymentId().equals(deployment)
        && !present.contains(r));
    model.live.values().removeIf(r -> !model.capacity.containsKey(r));
    // An older version never replaces a newer one.
    ledger.sync(new ReplicaSet(deployment, version - 1, "/", List.of(deployment.name()),
        "capacity-queue", Map.of(), List.of()));
  }

  /**
   * Records a grant after checking, against the model as it was just before it, that it went to
   * a least-loaded replica with room.
   */
  private static void grant(Model model, Lease lease, DeploymentId deployment) {
    ReplicaId replica = lease.replica().id();
    assertThat(model.capacity).containsKey(replica);
    assertThat(replica.deploymentId()).isEqualTo(deployment);
    long held = model.held(replica);
    assertThat(held).as("a grant on a replica at capacity").isLessThan(model.capacity.get(replica));
    long least = model.replicasOf(deployment).stream()
        .filter(r -> model.held(r) < model.capacity.get(r)).mapToLong(model::held).min()
        .orElseThrow();
    assertThat(held).as("a grant on the least loaded replica with room").isEqualTo(least);
    assertThat(model.issued).doesNotContain(lease.id());
    model.issued.add(lease.id());
    model.live.put(lease.id(), replica);
    model.issuedAt.put(lease.id(), model.now);
  }

  private static void checkAgainstModel(CapacityLedger<Integer> ledger, Model model,
      Map<String, CapacitySnapshot.ReplicaCapacity> before) {
    CapacitySnapshot snapshot = ledger.snapshot();
    assertThat(snapshot.leases()).isEqualTo(model.live.size());
    assertThat(snapshot.totalInFlight()).as("total in flight = live leases")
        .isEqualTo(model.live.size());
    assertThat(snapshot.waiters())
        .isEqualTo(model.waiters.stream().mapToInt(ArrayDeque::size).sum());
    assertThat(snapshot.replicas()).hasSize(model.capacity.size());
    for (CapacitySnapshot.ReplicaCapacity row : snapshot.replicas()) {
      ReplicaId id = ReplicaId.parse(row.replicaId());
      assertThat(row.capacity()).isEqualTo(model.capacity.get(id));
      assertThat(row.leases()).as("leases of %s", id).isEqualTo(model.held(id))
          .isGreaterThanOrEqualTo(0);
      assertThat(row.untracked()).isZero();
      // Over capacity only after a shrink, and then never growing until work ends.
      CapacitySnapshot.ReplicaCapacity previous = before.get(row.replicaId());
      if (row.inFlight() > row.capacity()) {
        assertThat(previous).as("%s over capacity", id).isNotNull();
        assertThat(row.inFlight()).isLessThanOrEqualTo(previous.inFlight());
      }
    }
  }

  private static Map<String, CapacitySnapshot.ReplicaCapacity> rows(CapacityLedger<?> ledger) {
    return ledger.snapshot().replicas().stream()
        .collect(Collectors.toMap(CapacitySnapshot.ReplicaCapacity::replicaId, r -> r));
  }


}
