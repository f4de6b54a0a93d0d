package dev.sluice.router.policy.prefixaffinity;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.LoadView;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.PolicyMetrics;
import dev.sluice.router.spi.RequestRouter;
import dev.sluice.router.spi.RouterContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * {@code prefix-cache-affinity}: send a prompt to the replica that has served its longest prefix
 * (its KV cache likely still holds it), unless that replica is much busier than the least loaded
 * one; otherwise, or without a match, to the least loaded replica. Needs body forwarding: without
 * a readable prompt (no body, a cut or unparsable body) the request has no key and goes to the
 * least loaded replica.
 */
public final class PrefixCacheAffinityRouter implements RequestRouter {

  public static final String KEY = "prefix-cache-affinity";

  private final LoadView loads;
  private final PolicyMetrics metrics;
  private final RandomGenerator random;
  private final double minMatchRatio;
  private final int imbalanceAbs;
  private final double imbalanceRel;
  private final int blockChars;
  private final int maxBlocks;
  private PrefixIndex index;
  private Map<String, Integer> slots = new HashMap<>();
  private List<String> slotIds = new ArrayList<>();
  private List<ReplicaInfo> lastCandidates = List.of();

  PrefixCacheAffinityRouter(RouterContext context, double minMatchRatio, int imbalanceAbs,
      double imbalanceRel, int blockChars, int maxBlocks) {
    this.loads = context.loads();
    this.metrics = context.metrics();
    this.random = context.random();
    this.minMatchRatio = minMatchRatio;
    this.imbalanceAbs = imbalanceAbs;
    this.imbalanceRel = imbalanceRel;
    this.blockChars = blockChars;
    this.maxBlocks = maxBlocks;
    this.index = new PrefixIndex(0, blockChars, maxBlocks);
  }

  public static PrefixCacheAffinityRouter create(RouterContext context, Kwargs kwargs) {
    kwargs.allowOnly("min_match_ratio", "imbalance_abs_threshold", "imbalance_rel_threshold",
        "block_chars", "max_blocks_per_replica");
    return new PrefixCacheAffinityRouter(context,
        kwargs.ratio("min_match_ratio", 0.5),
        kwargs.nonNegativeInt("imbalance_abs_threshold", 32),
        kwargs.atLeast("imbalance_rel_threshold", 1.5, 1.0),
        kwargs.positiveInt("block_chars", 64),
        kwargs.positiveInt("max_blocks_per_replica", 65536));
  }

  @Override
  public void onReplicaSetChanged(List<ReplicaInfo> replicas) {
    sync(replicas);
  }

  @Override
  public List<List<ReplicaInfo>> chooseReplicas(
      List<ReplicaInfo> candidates, PendingRequest request) {
    if (candidates != lastCandidates) {
      sync(candidates);
    }
    if (candidates.isEmpty()) {
      return List.of();
    }
    ReplicaInfo leastLoaded = leastLoaded(candidates, null);
    ReplicaInfo chosen = leastLoaded;
    if (request.prompt().isPresent()) {
      String prompt = request.prompt().get();
      PrefixIndex.Match match = index.longestMatch(prompt);
      boolean affine = match.chars() > 0 && match.chars() >= minMatchRatio * prompt.length();
      if (affine) {
        ReplicaInfo favourite = leastLoaded(candidates, match.replicas());
        int favouriteLoad = loads.estimatedLoad(favourite);
        int minLoad = loads.estimatedLoad(leastLoaded);
        boolean imbalanced = favouriteLoad - minLoad > imbalanceAbs
            && favouriteLoad > imbalanceRel * minLoad;
        chosen = imbalanced ? leastLoaded : favourite;
        metrics.affinity(!imbalanced);
      } else {
        metrics.affinity(false);
      }
      index.insert(slots.get(chosen.id().uniqueId()), prompt);
    }
    return ranks(candidates, chosen);
  }

  /** The chosen replica first, then the others by load (fallbacks on the reserve path). */
  private List<List<ReplicaInfo>> ranks(List<ReplicaInfo> candidates, ReplicaInfo chosen) {
    if (candidates.size() == 1) {
      return List.of(List.of(chosen));
    }
    List<ReplicaInfo> rest = new ArrayList<>(candidates.size() - 1);
    for (ReplicaInfo candidate : candidates) {
      if (candidate != chosen) {
        rest.add(candidate);
      }
    }
    rest.sort(Comparator.comparingInt(loads::estimatedLoad));
    List<List<ReplicaInfo>> ranks = new ArrayList<>(candidates.size());
    ranks.add(List.of(chosen));
    for (ReplicaInfo replica : rest) {
      ranks.add(List.of(replica));
    }
    return ranks;
  }

  /** Least loaded candidate, among {@code among} slots if given; ties broken at random. */
  private ReplicaInfo leastLoaded(List<ReplicaInfo> candidates, long[] among) {
    ReplicaInfo best = null;
    int bestLoad = Integer.MAX_VALUE;
    int ties = 0;
    for (ReplicaInfo candidate : candidates) {
      if (among != null) {
        int slot = slots.get(candidate.id().uniqueId());
        if ((among[slot >>> 6] & (1L << slot)) == 0) {
          continue;
        }
      }
      int load = loads.estimatedLoad(candidate);
      if (load < bestLoad) {
        best = candidate;
        bestLoad = load;
        ties = 1;
      } else if (load == bestLoad && random.nextInt(++ties) == 0) {
        best = candidate;
      }
    }
    return best;
  }

  /**
   * Keeps one index slot per replica id: replicas that stay keep their slot (and their cached
   * prefixes); a replica that leaves frees its slot and forgets its prefixes; when slots run out
   * the index is rebuilt twice as large.
   */
  private void sync(List<ReplicaInfo> replicas) {
    lastCandidates = replicas;
    Set<String> ids = new LinkedHashSet<>();
    for (ReplicaInfo replica : replicas) {
      ids.add(replica.id().uniqueId());
    }
    if (ids.equals(slots.keySet())) {
      return;
    }
    for (int slot = 0; slot < slotIds.size(); slot++) {
      String id = slotIds.get(slot);
      if (id != null && !ids.contains(id)) {
        index.clear(slot);
        slots.remove(id);
        slotIds.set(slot, null);
      }
    }
    for (String id : ids) {
      if (!slots.containsKey(id)) {
        int free = slotIds.indexOf(null);
        if (free < 0) {
          rebuild(List.copyOf(ids));
          return;
        }
        slotIds.set(free, id);
        slots.put(id, free);
      }
    }
  }

  /** A fresh index with room to grow; cached prefixes are forgotten (a rare, sizing event). */
  private void rebuild(List<String> ids) {
    int capacity = Math.max(8, Integer.highestOneBit(Math.max(1, ids.size())) * 2);
    index = new PrefixIndex(capacity, blockChars, maxBlocks);
    slotIds = new ArrayList<>();
    slots = new HashMap<>();
    for (int i = 0; i < capacity; i++) {
      slotIds.add(i < ids.size() ? ids.get(i) : null);
      if (i < ids.size()) {
        slots.put(ids.get(i), i);
      }
    }
    metrics.indexRebuilt();
  }
}
