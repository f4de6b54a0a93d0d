package dev.sluice.router.policy.roundrobin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.RouterContext;
import dev.sluice.router.testing.Replicas;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoundRobinRouterTest {

  private static final List<ReplicaInfo> THREE = Replicas.replicas(3);

  @Test
  void cyclesThroughCandidatesInOrder() {
    RoundRobinRouter router = new RoundRobinRouter(0);

    List<String> firsts = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      firsts.add(router.chooseReplicas(THREE, PendingRequest.of("r")).get(0).get(0).id()
          .uniqueId());
    }

    assertThat(firsts).containsExactly("r0000000", "r0000001", "r0000002", "r0000000",
        "r0000001", "r0000002");
  }

  @Test
  void ranksEveryCandidateOncePerRankSoAFullReplicaFallsThrough() {
    RoundRobinRouter router = new RoundRobinRouter(1);

    List<List<ReplicaInfo>> ranks = router.chooseReplicas(THREE, PendingRequest.of("r"));

    assertThat(ranks).hasSize(3).allSatisfy(rank -> assertThat(rank).hasSize(1));
    assertThat(ranks.stream().map(r -> r.get(0).id().uniqueId()))
        .containsExactly("r0000001", "r0000002", "r0000000");
  }

  @Test
  void noCandidatesMeansNoRanks() {
    assertThat(new RoundRobinRouter(0).chooseReplicas(List.of(), PendingRequest.of("r")))
        .isEmpty();
  }

  @Test
  void rejectsKwargs() {
    assertThatThrownBy(() -> RoundRobinRouter.create(RouterContext.forTests(1),
        new Kwargs(RoundRobinRouter.KEY, Map.of("x", 1L))))
        .hasMessage("request_router_kwargs.x: unknown for round-robin (expected one of: none)");
  }
}
