package dev.sluice.router.policy.poweroftwo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.testing.FakeLoads;
import dev.sluice.router.testing.Replicas;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PowerOfTwoRouterTest {

  private static final PendingRequest REQUEST = PendingRequest.of("r");

  @ParameterizedTest(name = "loads {0} -> never the busier of the pair")
  @CsvSource({"'0,5'", "'5,0'", "'3,3,9,1'", "'10,20,30,40,50,60,70,80'", "'7,1,7,1,7,1'"})
  void neverRanksTheBusierOfTwoKnownFirst(String lengths) {
    String[] values = lengths.split(",");
    List<ReplicaInfo> replicas = Replicas.replicas(values.length);
    FakeLoads loads = new FakeLoads();
    for (int i = 0; i < values.length; i++) {
      loads.set(replicas.get(i), Integer.parseInt(values[i]));
    }
    PowerOfTwoRouter router = new PowerOfTwoRouter(loads, new SplittableRandom(42));

    for (int trial = 0; trial < 2_000; trial++) {
      List<List<ReplicaInfo>> ranks = router.chooseReplicas(replicas, REQUEST);

      assertThat(ranks).hasSize(2);
      ReplicaInfo first = ranks.get(0).get(0);
      ReplicaInfo second = ranks.get(1).get(0);
      assertThat(first).isNotEqualTo(second);
      assertThat(loads.queueLength(first).getAsInt())
          .isLessThanOrEqualTo(loads.queueLength(second).getAsInt());
    }
  }

  @Test
  void samplesEveryReplicaEventually() {
    List<ReplicaInfo> replicas = Replicas.replicas(8);
    PowerOfTwoRouter router = new PowerOfTwoRouter(new FakeLoads(), new SplittableRandom(1));
    Set<ReplicaInfo> seen = new HashSet<>();

    for (int trial = 0; trial < 500; trial++) {
      router.chooseReplicas(replicas, REQUEST).forEach(seen::addAll);
    }

    assertThat(seen).containsExactlyInAnyOrderElementsOf(replicas);
  }

  @Test
  void skipsReplicasAtMaxOngoingRequests() {
    List<ReplicaInfo> replicas = List.of(Replicas.replica("full0000", 4),
        Replicas.replica("open0000", 4), Replicas.replica("full0001", 4));
    FakeLoads loads = new FakeLoads().set(replicas.get(0), 4).set(replicas.get(1), 3)
        .set(replicas.get(2), 9);
    PowerOfTwoRouter router = new PowerOfTwoRouter(loads, new SplittableRandom(3));

    for (int trial = 0; trial < 100; trial++) {
      assertThat(router.chooseReplicas(replicas, REQUEST))
          .containsExactly(List.of(replicas.get(1)));
    }
    loads.set(replicas.get(1), 4);
    assertThat(router.chooseReplicas(replicas, REQUEST)).isEmpty();
  }

  @Test
  void ranksAKnownLengthBeforeAnUnknownOne() {
    List<ReplicaInfo> replicas = Replicas.replicas(2);
    FakeLoads loads = new FakeLoads().set(replicas.get(1), 50);
    PowerOfTwoRouter router = new PowerOfTwoRouter(loads, new SplittableRandom(5));

    for (int trial = 0; trial < 100; trial++) {
      assertThat(router.chooseReplicas(replicas, REQUEST).get(0))
          .containsExactly(replicas.get(1));
    }
  }
}
