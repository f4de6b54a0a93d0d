package dev.sluice.router.policy.roundrobin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaState;
import dev.sluice.router.spi.PendingRequest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RoundRobinRouterTest {

  private static final List<ReplicaInfo> THREE = List.of(replica("aaaaaaaa"), replica("bbbbbbbb"),
      replica("cccccccc"));

  static ReplicaInfo replica(String uid) {
    return new ReplicaInfo(new ReplicaId("llm", "m", uid), "node", "127.0.0.1", 1, 4,
        ReplicaState.RUNNING, List.of("m"));
  }

  private static PendingRequest request() {
    return new PendingRequest("r", Optional.empty(), Optional.empty());
  }

  @Test
  void cyclesThroughCandidatesInOrder() {
    RoundRobinRouter router = new RoundRobinRouter(0);

    List<String> firsts = new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      firsts.add(router.chooseReplicas(THREE, request()).get(0).get(0).id().uniqueId());
    }

    assertThat(firsts).containsExactly("aaaaaaaa", "bbbbbbbb", "cccccccc", "aaaaaaaa",
        "bbbbbbbb", "cccccccc");
  }

  @Test
  void ranksEveryCandidateOncePerRankSoAFullReplicaFallsThrough() {
    RoundRobinRouter router = new RoundRobinRouter(1);

    List<List<ReplicaInfo>> ranks = router.chooseReplicas(THREE, request());

    assertThat(ranks).hasSize(3).allSatisfy(rank -> assertThat(rank).hasSize(1));
    assertThat(ranks.stream().map(r -> r.get(0).id().uniqueId()))
        .containsExactly("bbbbbbbb", "cccccccc", "aaaaaaaa");
  }

  @Test
  void noCandidatesMeansNoRanks() {
    assertThat(new RoundRobinRouter(0).chooseReplicas(List.of(), request())).isEmpty();
  }

  @Test
  void rejectsKwargs() {
    assertThatThrownBy(() -> RoundRobinRouter.create(Map.of("x", 1L)))
        .hasMessageContaining("expected: none for round-robin");
  }
}
