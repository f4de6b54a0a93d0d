package dev.sluice.router.policy.prefixaffinity;

import static dev.sluice.core.testing.Properties.forAll;
import static dev.sluice.core.testing.Properties.anyString;
import static dev.sluice.core.testing.Properties.size;
import static dev.sluice.core.testing.Properties.between;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.openai.ForwardedBody;
import dev.sluice.core.openai.RoutingKeys;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.PolicyMetrics;
import dev.sluice.router.spi.RouterContext;
import dev.sluice.router.testing.FakeLoads;
import dev.sluice.router.testing.Replicas;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Prefix affinity under any traffic: random and shared-prefix prompts, whole, cut and garbage
 * bodies, replicas joining and leaving, loads moving. It never throws, ranks exactly the
 * candidates, and never sends a request to a replica much busier than the least loaded one.
 */
class PrefixCacheAffinityRouterPropertiesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<ReplicaInfo> POOL = Replicas.replicas(12);
  private static final List<String> SHARED_PREFIXES = List.of(
      "You are a careful assistant. Answer briefly and cite your sources. ".repeat(3),
      "System: translate the user's text into French, keeping the formatting.\n".repeat(2),
      "<|system|>You write SQL for PostgreSQL 16.<|user|>");
  private static final String ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  private static final String JSONISH = "{}[]\":,0123456789 abcdefghijklmnopqrstuvwxyz";

  sealed interface Step permits Route, Members, Load {}

  /** A request: its prompt as a routing key, or its body as the ingress forwards it. */
  record Route(Optional<String> prompt, Optional<ForwardedBody> body) implements Step {}

  /** The deployment's replicas become these pool indices. */
  record Members(Set<Integer> indices) implements Step {}

  /** A load report. */
  record Load(int index, int load) implements Step {}

  /** Up to 60 steps: routes by prompt, by body, membership changes and load reports, 6:3:1:2. */
  private static List<Step> traffic(SplittableRandom random) {
    int count = size(random, 0, 60);
    List<Step> steps = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int roll = random.nextInt(12);
      if (roll < 6) {
        steps.add(new Route(Optional.of(prompt(random)), Optional.empty()));
      } else if (roll < 9) {
        steps.add(new Route(Optional.empty(), Optional.of(body(random))));
      } else if (roll < 10) {
        steps.add(members(random));
      } else {
        steps.add(new Load(between(random, 0, POOL.size() - 1), between(random, 0, 60)));
      }
    }
    return steps;
  }

  /** Up to all 12 replicas of the pool. */
  private static Members members(SplittableRandom random) {
    int size = size(random, 0, POOL.size());
    Set<Integer> indices = new HashSet<>();
    while (indices.size() < size) {
      indices.add(between(random, 0, POOL.size() - 1));
    }
    return new Members(indices);
  }

  /** Any text of up to 300 chars, or a shared prefix and up to 80 letters, evenly. */
  private static String prompt(SplittableRandom random) {
    if (random.nextBoolean()) {
      return anyString(random, 300);
    }
    return SHARED_PREFIXES.get(random.nextInt(SHARED_PREFIXES.size()))
        + stringOf(random, ALPHA, 80);
  }

  /**
   * A chat body cut at 0 to 400 bytes, up to 200 random bytes, or up to 120 chars of JSON-ish
   * text, evenly.
   */
  private static ForwardedBody body(SplittableRandom random) {
    int kind = random.nextInt(3);
    if (kind == 0) {
      return ForwardedBody.cut(chat(prompt(random)), between(random, 0, 400));
    }
    if (kind == 1) {
      // Any bytes, those near 0 as common as the others: the range cut in thirds toward 0 on
      // either side.
      byte[] bytes = new byte[size(random, 0, 200)];
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = (byte) (random.nextBoolean() ? between(random, 0, Byte.MAX_VALUE)
            : -between(random, 0, -Byte.MIN_VALUE));
      }
      return ForwardedBody.whole(bytes);
    }
    return ForwardedBody.whole(stringOf(random, JSONISH, 120).getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] chat(String prompt) {
    try {
      return JSON.writeValueAsBytes(Map.of("model", "m",
          "messages", List.of(Map.of("role", "user", "content", prompt))));
    } catch (JsonProcessingException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void routesAnyTrafficToKnownReplicasWithinTheImbalanceGuard() {
    forAll(200, random -> {
      List<Step> steps = traffic(random);
      int blockChars = between(random, 1, 32);
      int maxBlocks = between(random, 1, 64);
      // Ratios in hundredths, so that round values (0, 0.5, 1, 1.5) occur.
      double minMatchRatio = between(random, 0, 100) / 100.0;
      int imbalanceAbs = between(random, 0, 8);
      double imbalanceRel = between(random, 100, 300) / 100.0;
      FakeLoads loads = new FakeLoads();
      POOL.forEach(replica -> loads.set(replica, 0));
      PrefixCacheAffinityRouter router = PrefixCacheAffinityRouter.create(
          new RouterContext(loads, PolicyMetrics.NONE, random.split()),
          new Kwargs(PrefixCacheAffinityRouter.KEY, Map.of("block_chars", (long) blockChars,
              "max_blocks_per_replica", (long) maxBlocks, "min_match_ratio", minMatchRatio,
              "imbalance_abs_threshold", (long) imbalanceAbs,
              "imbalance_rel_threshold", imbalanceRel)));
      List<ReplicaInfo> candidates = POOL.subList(0, 4);
      router.onReplicaSetChanged(candidates);

      for (Step step : steps) {
        if (step instanceof Members m) {
          candidates = m.indices().stream().sorted().map(POOL::get).toList();
          router.onReplicaSetChanged(candidates);
        } else if (step instanceof Load l) {
          loads.set(POOL.get(l.index()), l.load());
        } else if (step instanceof Route r) {
          Optional<String> prompt = r.prompt().isPresent() ? r.prompt()
              : r.body().map(ForwardedBody::routingKeys).flatMap(RoutingKeys::prompt);
          PendingRequest request = new PendingRequest("req", Optional.empty(), Optional.empty(),
              prompt);

          List<List<ReplicaInfo>> ranks = router.chooseReplicas(candidates, request);

          checkRanks(ranks, candidates, loads, prompt.isPresent(), imbalanceAbs, imbalanceRel);
          if (!ranks.isEmpty()) {
            loads.add(ranks.get(0).get(0), 1);
          }
        }
      }
    });
  }

  private static void checkRanks(List<List<ReplicaInfo>> ranks, List<ReplicaInfo> candidates,
      FakeLoads loads, boolean keyed, int imbalanceAbs, double imbalanceRel) {
    assertThat(ranks).allSatisfy(rank -> assertThat(rank).hasSize(1));
    List<ReplicaInfo> order = ranks.stream().map(rank -> rank.get(0)).toList();
    assertThat(order).containsExactlyInAnyOrderElementsOf(candidates);
    if (order.isEmpty()) {
      return;
    }
    int least = candidates.stream().mapToInt(loads::estimatedLoad).min().orElseThrow();
    int chosen = loads.estimatedLoad(order.get(0));
    if (!keyed) {
      assertThat(chosen).as("no routing key: the least loaded").isEqualTo(least);
    }
    assertThat(chosen - least > imbalanceAbs && chosen > imbalanceRel * least)
        .as("chose load %d while the least loaded has %d", chosen, least).isFalse();
    for (int i = 2; i < order.size(); i++) {
      assertThat(loads.estimatedLoad(order.get(i)))
          .isGreaterThanOrEqualTo(loads.estimatedLoad(order.get(i - 1)));
    }
  }

  /** A string of up to {@code maxLength} chars drawn evenly from {@code chars}. */
  private static String stringOf(SplittableRandom random, String chars, int maxLength) {
    int length = size(random, 0, maxLength);
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append(chars.charAt(random.nextInt(chars.length())));
    }
    return text.toString();
  }



}
