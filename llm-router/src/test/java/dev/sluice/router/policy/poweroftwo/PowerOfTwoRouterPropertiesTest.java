package dev.sluice.router.policy.poweroftwo;

import static dev.sluice.core.testing.Properties.forAll;
import static dev.sluice.core.testing.Properties.between;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.testing.FakeLoads;
import dev.sluice.router.testing.Replicas;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Power of two choices: never a known-full replica, always a candidate, shorter queue first. */
class PowerOfTwoRouterPropertiesTest {

  private static final PendingRequest REQUEST = PendingRequest.of("r");

  /** One replica: its max_ongoing_requests and its reported queue length (-1 = no report). */
  record Spec(int maxOngoing, int queueLength) {}

  /** Lengths around the capacity, so that full, nearly full and unknown replicas all occur. */
  private static Spec spec(SplittableRandom random) {
    int max = between(random, 1, 6);
    return new Spec(max, between(random, -1, max + 2));
  }

  @Test
  void picksOnlyCandidatesNotKnownFullWheneverOneExists() {
    forAll(200, random -> {
      int count = random.nextInt(1, 13);
      List<Spec> specs = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        specs.add(spec(random));
      }
      List<ReplicaInfo> candidates = new ArrayList<>();
      FakeLoads loads = new FakeLoads();
      for (int i = 0; i < specs.size(); i++) {
        ReplicaInfo replica =
            Replicas.replica(String.format("r%07d", i), specs.get(i).maxOngoing());
        candidates.add(replica);
        if (specs.get(i).queueLength() >= 0) {
          loads.set(replica, specs.get(i).queueLength());
        }
      }
      long open = candidates.stream().filter(r -> !loads.isKnownFull(r)).count();
      PowerOfTwoRouter router = new PowerOfTwoRouter(loads, random.split());

      for (int call = 0; call < 20; call++) {
        List<List<ReplicaInfo>> ranks = router.chooseReplicas(candidates, REQUEST);

        assertThat(ranks).allSatisfy(rank -> assertThat(rank).hasSize(1));
        List<ReplicaInfo> picked = ranks.stream().map(rank -> rank.get(0)).toList();
        assertThat(picked).as("specs %s", specs).hasSize((int) Math.min(2, open))
            .doesNotHaveDuplicates().isSubsetOf(candidates).noneMatch(loads::isKnownFull);
        if (picked.size() == 2) {
          OptionalInt first = loads.queueLength(picked.get(0));
          OptionalInt second = loads.queueLength(picked.get(1));
          if (second.isPresent()) {
            assertThat(first).as("a known length ranks before an unknown one").isPresent();
            assertThat(first.getAsInt()).isLessThanOrEqualTo(second.getAsInt());
          }
        }
      }
    });
  }

}
