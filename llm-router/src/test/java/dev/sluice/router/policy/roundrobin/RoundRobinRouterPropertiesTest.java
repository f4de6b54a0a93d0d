package dev.sluice.router.policy.roundrobin;

import static dev.sluice.core.testing.Properties.forAll;
import static dev.sluice.core.testing.Properties.between;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.RouterContext;
import dev.sluice.router.testing.Replicas;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Round-robin spreads evenly from any starting point. */
class RoundRobinRouterPropertiesTest {

  private static final PendingRequest REQUEST = PendingRequest.of("r");

  /**
   * Any start a router can have (a long cursor counted as unsigned: it cannot wrap in 2^63
   * calls).
   */
  @Test
  void nTimesKRequestsGiveEveryReplicaExactlyK() {
    forAll(200, random -> {
      int n = between(random, 1, 17);
      int k = between(random, 1, 6);
      long start = start(random, n * k);
      List<ReplicaInfo> replicas = Replicas.replicas(n);
      RoundRobinRouter router = new RoundRobinRouter(start);

      Map<ReplicaInfo, Integer> firsts = new HashMap<>();
      for (int i = 0; i < n * k; i++) {
        firsts.merge(router.chooseReplicas(replicas, REQUEST).get(0).get(0), 1, Integer::sum);
      }

      assertThat(firsts).as("n=%d, k=%d, start=%d", n, k, start).hasSize(n)
          .allSatisfy((replica, count) -> assertThat(count).isEqualTo(k));
    });
  }

  @Test
  void everyAnswerRanksEachCandidateOnceStartingOneAfterThePrevious() {
    forAll(200, random -> {
      int n = between(random, 1, 17);
      List<ReplicaInfo> replicas = Replicas.replicas(n);
      RoundRobinRouter router = RoundRobinRouter.create(RouterContext.forTests(random.nextLong()),
          new Kwargs(RoundRobinRouter.KEY, Map.of()));

      int previous = -1;
      for (int call = 0; call < 2 * n; call++) {
        List<List<ReplicaInfo>> ranks = router.chooseReplicas(replicas, REQUEST);

        assertThat(ranks).allSatisfy(rank -> assertThat(rank).hasSize(1));
        assertThat(ranks.stream().map(rank -> rank.get(0)))
            .containsExactlyInAnyOrderElementsOf(replicas);
        int first = replicas.indexOf(ranks.get(0).get(0));
        for (int r = 0; r < n; r++) {
          assertThat(ranks.get(r).get(0)).isEqualTo(replicas.get((first + r) % n));
        }
        if (previous >= 0) {
          assertThat(first).as("call %d of %d replicas", call, n).isEqualTo((previous + 1) % n);
        }
        previous = first;
      }
    });
  }


  /**
   * A start in [0, 2^63 - 1]. One time in ten an end of the range, or a start close enough to the
   * top that the cursor passes 2^63 during the {@code calls}; otherwise small values as often as
   * large ones: the range cut in thirds toward 0 and one piece chosen evenly.
   */
  private static long start(SplittableRandom random, int calls) {
    int roll = random.nextInt(30);
    if (roll < 3) {
      return roll == 0 ? 0 : roll == 1 ? Long.MAX_VALUE : Long.MAX_VALUE - random.nextInt(calls);
    }
    int pieces = 1;
    for (long rest = Long.MAX_VALUE; rest > 20; rest /= 3) {
      pieces++;
    }
    int piece = random.nextInt(pieces);
    long high = Long.MAX_VALUE;
    for (int i = 0; i < piece; i++) {
      high /= 3;
    }
    long low = piece == pieces - 1 ? 0 : high / 3 + 1;
    return low + random.nextLong(high - low + 1);
  }
}
