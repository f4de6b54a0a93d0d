package dev.sluice.router.policy.prefixaffinity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.openai.ForwardedBody;
import dev.sluice.core.openai.RoutingKeys;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.RouterContext;
import dev.sluice.router.testing.CountingMetrics;
import dev.sluice.router.testing.FakeLoads;
import dev.sluice.router.testing.Replicas;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PrefixCacheAffinityRouterTest {

  private static final String SYSTEM_PROMPT = systemPrompt(2048);
  private final FakeLoads loads = new FakeLoads();
  private final CountingMetrics metrics = new CountingMetrics();
  private final List<ReplicaInfo> replicas = Replicas.replicas(4);

  private static String systemPrompt(int length) {
    StringBuilder text = new StringBuilder("You are a careful assistant. ");
    int i = 0;
    while (text.length() < length) {
      text.append("Rule ").append(i++).append(": answer briefly and cite sources. ");
    }
    return text.substring(0, length);
  }

  private PrefixCacheAffinityRouter router(Map<String, Object> kwargs) {
    PrefixCacheAffinityRouter router = PrefixCacheAffinityRouter.create(
        new RouterContext(loads, metrics, new SplittableRandom(9)),
        new Kwargs(PrefixCacheAffinityRouter.KEY, kwargs));
    router.onReplicaSetChanged(replicas);
    return router;
  }

  private static PendingRequest prompt(String text) {
    return new PendingRequest("r", Optional.empty(), Optional.empty(), Optional.of(text));
  }

  /** Routes like the router would: the first rank wins, and its load goes up by one. */
  private ReplicaInfo route(PrefixCacheAffinityRouter router, PendingRequest request) {
    ReplicaInfo chosen = router.chooseReplicas(replicas, request).get(0).get(0);
    loads.add(chosen, 1);
    return chosen;
  }

  @Test
  void requestsSharingASystemPromptStayOnOneReplica() {
    replicas.forEach(r -> loads.set(r, 0));
    PrefixCacheAffinityRouter router = router(Map.of());
    Set<ReplicaInfo> chosen = new HashSet<>();

    for (int i = 0; i < 20; i++) {
      chosen.add(route(router, prompt(SYSTEM_PROMPT + "\nUser question number " + i + "?")));
    }

    assertThat(chosen).hasSize(1);
    assertThat(metrics.affinityHits).isEqualTo(19);
  }

  @Test
  void anOverloadedFavouriteLosesToTheLeastLoaded() {
    replicas.forEach(r -> loads.set(r, 0));
    PrefixCacheAffinityRouter router = router(Map.of("imbalance_abs_threshold", 4L,
        "imbalance_rel_threshold", 1.5));
    ReplicaInfo favourite = route(router, prompt(SYSTEM_PROMPT + " first"));

    loads.set(favourite, 10);
    ReplicaInfo next = route(router, prompt(SYSTEM_PROMPT + " second"));

    assertThat(next).isNotEqualTo(favourite);
    assertThat(metrics.affinityMisses).isEqualTo(2);
  }

  @Test
  void shortMatchesBelowTheMinimumRatioGoToTheLeastLoaded() {
    replicas.forEach(r -> loads.set(r, 0));
    PrefixCacheAffinityRouter router = router(Map.of("min_match_ratio", 0.9));
    ReplicaInfo first = route(router, prompt(SYSTEM_PROMPT.substring(0, 256) + "x".repeat(64)));

    ReplicaInfo second = route(router,
        prompt(SYSTEM_PROMPT.substring(0, 256) + "y".repeat(2000)));

    assertThat(second).isNotEqualTo(first);
  }

  @Test
  void cutOrUnparsableBodiesRouteToTheLeastLoadedWithoutError() {
    loads.set(replicas.get(0), 5).set(replicas.get(1), 1).set(replicas.get(2), 7)
        .set(replicas.get(3), 3);
    PrefixCacheAffinityRouter router = router(Map.of());
    byte[] json = ("{\"messages\":[{\"role\":\"system\",\"content\":\"" + SYSTEM_PROMPT
        + "\"}]}").getBytes(StandardCharsets.UTF_8);
    ForwardedBody cut = new ForwardedBody(Arrays.copyOf(json, 300), json.length);
    ForwardedBody garbage = ForwardedBody.whole("{\"messages\": [".getBytes(StandardCharsets.UTF_8));

    for (ForwardedBody body : List.of(cut, garbage)) {
      RoutingKeys keys = body.routingKeys();
      PendingRequest request = new PendingRequest("r", Optional.empty(), keys.model(),
          keys.prompt());
      assertThat(keys.prompt()).isEmpty();
      assertThat(router.chooseReplicas(replicas, request).get(0))
          .containsExactly(replicas.get(1));
    }
  }

  @Test
  void rankingPutsTheChoiceFirstThenTheRestByLoad() {
    loads.set(replicas.get(0), 5).set(replicas.get(1), 1).set(replicas.get(2), 7)
        .set(replicas.get(3), 3);

    List<List<ReplicaInfo>> ranks = router(Map.of()).chooseReplicas(replicas, prompt("hi"));

    assertThat(ranks.stream().map(rank -> rank.get(0))).containsExactly(replicas.get(1),
        replicas.get(3), replicas.get(0), replicas.get(2));
  }

  @Test
  void leastRecentlyUsedPrefixesAreForgotten() {
    replicas.forEach(r -> loads.set(r, 0));
    PrefixCacheAffinityRouter router = router(Map.of("max_blocks_per_replica", 40L,
        "imbalance_abs_threshold", 1000L));
    ReplicaInfo first = route(router, prompt(SYSTEM_PROMPT));
    // 2048 chars = 32 blocks; a different 2 KiB prompt on the same replica evicts most of them.
    loads.set(first, -100);
    route(router, prompt(systemPrompt(4096).substring(2048)));
    loads.set(first, 100);

    ReplicaInfo again = route(router, prompt(SYSTEM_PROMPT));

    assertThat(again).isNotEqualTo(first);
  }

  @Test
  void aReplicaThatLeavesTakesItsPrefixesWithIt() {
    replicas.forEach(r -> loads.set(r, 0));
    PrefixCacheAffinityRouter router = router(Map.of());
    ReplicaInfo favourite = route(router, prompt(SYSTEM_PROMPT));
    List<ReplicaInfo> without = replicas.stream().filter(r -> r != favourite).toList();
    router.onReplicaSetChanged(without);
    router.onReplicaSetChanged(replicas);

    loads.set(favourite, 3);
    List<List<ReplicaInfo>> ranks = router.chooseReplicas(replicas, prompt(SYSTEM_PROMPT));

    assertThat(ranks.get(0).get(0)).isNotEqualTo(favourite);
  }
}
