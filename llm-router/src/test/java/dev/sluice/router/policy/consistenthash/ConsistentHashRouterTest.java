package dev.sluice.router.policy.consistenthash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.PolicyMetrics;
import dev.sluice.router.spi.RouterContext;
import dev.sluice.router.testing.CountingMetrics;
import dev.sluice.router.testing.FakeLoads;
import dev.sluice.router.testing.Replicas;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConsistentHashRouterTest {

  private static ConsistentHashRouter router(int vnodes, int fallbacks, PolicyMetrics metrics) {
    return ConsistentHashRouter.create(
        new RouterContext(new FakeLoads(), metrics, new SplittableRandom(1)),
        new Kwargs(ConsistentHashRouter.KEY, Map.of("num_virtual_nodes", (long) vnodes,
            "num_fallback_replicas", (long) fallbacks)));
  }

  private static ConsistentHashRouter router() {
    return router(100, 2, PolicyMetrics.NONE);
  }

  private static PendingRequest session(String id) {
    return new PendingRequest("req-" + id, Optional.of(id), Optional.empty(), Optional.empty());
  }

  private static String primary(ConsistentHashRouter router, List<ReplicaInfo> replicas,
      PendingRequest request) {
    return router.chooseReplicas(replicas, request).get(0).get(0).id().uniqueId();
  }

  /**
   * Known answers from the reference MurmurHash3_x64_128 (Appleby's C, which passes SMHasher's
   * verification 0x6384BA69), seed 0xF9B4CA77 as an unsigned 32-bit value, low 64 bits.
   */
  @ParameterizedTest(name = "murmur3(\"{0}\") = {1}")
  @CsvSource({
    "'', 17944898435421527041",
    "a, 7679774072590644845",
    "abcd1234:0, 7873817414250614336",
    "abcd1234:99, 17430261990216765907",
    "session-42, 10838242494130830437",
    "'The quick brown fox jumps over the lazy dog', 16510073043511987613"
  })
  void hashMatchesTheReferenceMurmurHash3(String key, String unsignedLow64) {
    assertThat(Long.toUnsignedString(HashRing.hash(key))).isEqualTo(unsignedLow64);
  }

  @Test
  void sameKeySamePrimaryAcrossRestartsAndIndependentRouters() {
    List<ReplicaInfo> replicas = Replicas.replicas(7);
    ConsistentHashRouter first = router();
    ConsistentHashRouter second = router();
    List<ReplicaInfo> shuffled = new ArrayList<>(replicas);
    java.util.Collections.shuffle(shuffled, new java.util.Random(3));

    for (int i = 0; i < 1_000; i++) {
      PendingRequest request = session("user-" + i);
      String expected = primary(first, replicas, request);
      assertThat(primary(second, shuffled, request)).isEqualTo(expected);
      assertThat(primary(router(), replicas, request)).isEqualTo(expected);
    }
  }

  @Test
  void addingOneReplicaToTenRemapsAboutOneEleventh() {
    List<ReplicaInfo> ten = Replicas.replicas(10);
    List<ReplicaInfo> eleven = Replicas.replicas(11);
    ConsistentHashRouter router = router();
    Map<String, String> before = new HashMap<>();
    for (int i = 0; i < 10_000; i++) {
      before.put("k" + i, primary(router, ten, session("k" + i)));
    }

    int moved = 0;
    for (int i = 0; i < 10_000; i++) {
      String now = primary(router, eleven, session("k" + i));
      if (!now.equals(before.get("k" + i))) {
        moved++;
        assertThat(now).as("a moved key goes to the new replica").isEqualTo("r0000010");
      }
    }

    assertThat(moved / 10_000.0).isBetween(0.05, 0.15);
  }

  @Test
  void removingOneReplicaRemapsOnlyItsKeys() {
    List<ReplicaInfo> ten = Replicas.replicas(10);
    List<ReplicaInfo> nine = new ArrayList<>(ten);
    ReplicaInfo removed = nine.remove(4);
    ConsistentHashRouter router = router();

    for (int i = 0; i < 10_000; i++) {
      String before = primary(router, ten, session("k" + i));
      String after = primary(router, nine, session("k" + i));
      if (!before.equals(removed.id().uniqueId())) {
        assertThat(after).isEqualTo(before);
      } else {
        assertThat(after).isNotEqualTo(before);
      }
    }
  }

  @Test
  void fallbacksAreDistinctClockwiseSuccessors() {
    List<ReplicaInfo> replicas = Replicas.replicas(6);
    ConsistentHashRouter router = router(100, 2, PolicyMetrics.NONE);
    List<String> ids = replicas.stream().map(r -> r.id().uniqueId()).sorted().toList();
    HashRing ring = new HashRing(ids, 100);

    for (int i = 0; i < 500; i++) {
      PendingRequest request = session("s" + i);
      List<List<ReplicaInfo>> ranks = router.chooseReplicas(replicas, request);
      int[] expected = new int[3];
      int found = ring.distinctOwnersFrom(ring.firstPointAtOrAfter(HashRing.hash("s" + i)), 3,
          expected);

      assertThat(found).isEqualTo(3);
      assertThat(ranks).hasSize(3).allSatisfy(rank -> assertThat(rank).hasSize(1));
      assertThat(ranks.stream().map(r -> r.get(0).id().uniqueId()).distinct()).hasSize(3);
      for (int r = 0; r < 3; r++) {
        assertThat(ranks.get(r).get(0).id().uniqueId()).isEqualTo(ids.get(expected[r]));
      }
    }
  }

  @Test
  void zeroFallbacksMeansThePrimaryOnly() {
    ConsistentHashRouter router = router(100, 0, PolicyMetrics.NONE);

    assertThat(router.chooseReplicas(Replicas.replicas(5), session("x"))).hasSize(1);
  }

  @Test
  void requestsWithoutSessionSpreadEvenly() {
    List<ReplicaInfo> replicas = Replicas.replicas(4);
    ConsistentHashRouter router = router();
    Map<String, Integer> counts = new HashMap<>();
    java.util.Random random = new java.util.Random(11);

    for (int i = 0; i < 10_000; i++) {
      String requestId = new UUID(random.nextLong(), random.nextLong()).toString();
      counts.merge(primary(router, replicas, PendingRequest.of(requestId)), 1, Integer::sum);
    }

    assertThat(counts).hasSize(4);
    assertThat(counts.values()).allSatisfy(count -> assertThat(count).isBetween(2_000, 3_000));
  }

  @Test
  void ringIsRebuiltOnlyWhenTheReplicaIdSetChanges() {
    CountingMetrics metrics = new CountingMetrics();
    ConsistentHashRouter router = router(100, 2, metrics);
    List<ReplicaInfo> replicas = Replicas.replicas(3);

    router.onReplicaSetChanged(replicas);
    router.onReplicaSetChanged(new ArrayList<>(replicas));
    router.chooseReplicas(List.copyOf(replicas), session("a"));
    assertThat(metrics.rebuilds).isEqualTo(1);

    router.onReplicaSetChanged(Replicas.replicas(4));
    assertThat(metrics.rebuilds).isEqualTo(2);
  }

  @Test
  void affinityCountsSessionsThatStayOnTheirPrimary() {
    CountingMetrics metrics = new CountingMetrics();
    ConsistentHashRouter router = router(100, 2, metrics);

    router.onRouted(session("a"), 0);
    router.onRouted(session("b"), 1);
    router.onRouted(PendingRequest.of("no-session"), 0);

    assertThat(metrics.affinityHits).isEqualTo(1);
    assertThat(metrics.affinityMisses).isEqualTo(1);
  }
}
