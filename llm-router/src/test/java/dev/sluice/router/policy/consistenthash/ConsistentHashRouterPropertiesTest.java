package dev.sluice.router.policy.consistenthash;

import static dev.sluice.core.testing.Properties.forAll;
import static dev.sluice.core.testing.Properties.anyString;
import static dev.sluice.core.testing.Properties.size;
import static dev.sluice.core.testing.Properties.between;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.RouterContext;
import dev.sluice.router.testing.Replicas;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Consistent hashing: stable keys, minimal movement, distinct bounded fallbacks. */
class ConsistentHashRouterPropertiesTest {

  private static ConsistentHashRouter router(int virtualNodes, int fallbacks) {
    return ConsistentHashRouter.create(RouterContext.forTests(1),
        new Kwargs(ConsistentHashRouter.KEY, Map.of("num_virtual_nodes", (long) virtualNodes,
            "num_fallback_replicas", (long) fallbacks)));
  }

  private static int requests;

  /** A request of session {@code key}, with a request id of its own (the key is the session). */
  private static PendingRequest session(String key) {
    return new PendingRequest("req-" + requests++, Optional.of(key), Optional.empty(),
        Optional.empty());
  }

  /** Replicas {@code r0000007}, ... for the given numbers. */
  private static List<ReplicaInfo> replicas(Set<Integer> numbers) {
    return numbers.stream().sorted().map(n -> Replicas.replica(String.format("r%07d", n)))
        .toList();
  }

  private static List<ReplicaInfo> ranked(ConsistentHashRouter router,
      List<ReplicaInfo> candidates, String key) {
    List<List<ReplicaInfo>> ranks = router.chooseReplicas(candidates, session(key));
    assertThat(ranks).allSatisfy(rank -> assertThat(rank).hasSize(1));
    return ranks.stream().map(rank -> rank.get(0)).toList();
  }

  @Test
  void theSameKeyAlwaysGetsTheSameRanksForAFixedSet() {
    forAll(200, random -> {
      List<ReplicaInfo> candidates = replicas(replicaNumbers(random));
      List<String> keys = keys(random, 20);
      int virtualNodes = between(random, 1, 40);
      int fallbacks = between(random, 0, 4);
      List<ReplicaInfo> shuffled = new ArrayList<>(candidates);
      Collections.shuffle(shuffled, new Random(random.nextLong()));
      ConsistentHashRouter router = router(virtualNodes, fallbacks);
      ConsistentHashRouter other = router(virtualNodes, fallbacks);

      for (String key : keys) {
        List<ReplicaInfo> first = ranked(router, candidates, key);

        assertThat(ranked(router, candidates, key)).as("key %s", key).isEqualTo(first);
        assertThat(ranked(other, shuffled, key))
            .as("key %s: another router, candidates in another order", key).isEqualTo(first);
      }
    });
  }

  @Test
  void ranksAreDistinctCandidatesNeverMoreThanOnePlusTheFallbacks() {
    forAll(200, random -> {
      List<ReplicaInfo> candidates = replicas(replicaNumbers(random));
      List<String> keys = keys(random, 20);
      int virtualNodes = between(random, 1, 40);
      int fallbacks = between(random, 0, 14);
      ConsistentHashRouter router = router(virtualNodes, fallbacks);

      for (String key : keys) {
        List<ReplicaInfo> ranks = ranked(router, candidates, key);

        assertThat(ranks).as("key %s, %d fallbacks", key, fallbacks).doesNotHaveDuplicates()
            .isSubsetOf(candidates).hasSize(Math.min(candidates.size(), 1 + fallbacks));
      }
    });
  }

  /**
   * Removing a replica moves only the keys it held; every other key keeps its whole ranking, the
   * removed replica taken out (and, when the ranking was cut at 1 + fallbacks, one more successor
   * appended).
   */
  @Test
  void removingOneReplicaOnlyRemapsTheKeysThatWereOnIt() {
    forAll(200, random -> {
      List<ReplicaInfo> before = replicas(replicaNumbers(random));
      int removedIndex = between(random, 0, 11);
      List<String> keys = keys(random, 30);
      int virtualNodes = between(random, 1, 40);
      int fallbacks = between(random, 0, 4);
      ReplicaInfo removed = before.get(removedIndex % before.size());
      List<ReplicaInfo> after = before.stream().filter(r -> r != removed).toList();
      ConsistentHashRouter router = router(virtualNodes, fallbacks);

      for (String key : keys) {
        List<ReplicaInfo> was = ranked(router, before, key);
        List<ReplicaInfo> now = ranked(router, after, key);

        List<ReplicaInfo> survivors = was.stream().filter(r -> r != removed).toList();
        assertThat(now).as("key %s", key).doesNotContain(removed);
        assertThat(now.subList(0, survivors.size())).as("key %s", key).isEqualTo(survivors);
        if (was.get(0) != removed && !now.isEmpty()) {
          assertThat(now.get(0)).as("primary of key %s", key).isEqualTo(was.get(0));
        }
      }
    });
  }

  /** 1 to 12 distinct replica numbers in [0, 9_999_999]. */
  private static Set<Integer> replicaNumbers(SplittableRandom random) {
    int size = size(random, 1, 12);
    Set<Integer> numbers = new HashSet<>();
    while (numbers.size() < size) {
      numbers.add(between(random, 0, 9_999_999));
    }
    return numbers;
  }

  /** 1 to {@code max} session keys, each of up to 40 chars. */
  private static List<String> keys(SplittableRandom random, int max) {
    int size = size(random, 1, max);
    List<String> keys = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      keys.add(anyString(random, 40));
    }
    return keys;
  }



}
