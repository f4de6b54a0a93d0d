package dev.sluice.router.policy.prefixaffinity;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.LoadView;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.PolicyMetrics;
import dev.sluice.router.spi.ReadsPrompt;
import dev.sluice.router.spi.RequestRouter;
import dev.sluice.router.spi.RouterContext;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * {@code prefix-cache-affinity}: send a prompt to the replica that has served its longest prefix
 * (its KV cache likely still holds it), unless that replica is much busier than the least loaded
 * one; otherwise, or without a match, to the least loaded replica. It {@link ReadsPrompt}, so its
 * requests bring their body to the router; without a readable prompt (a cut or unparsable body)
 * the request has no key and goes to the least loaded replica.
 */
public final class PrefixCacheAffinityRouter implements RequestRouter, ReadsPrompt {

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
  /** Index slot of each candidate, by position in {@link #lastCandidates}. */
  private int[] candidateSlot = new int[0];
  private int[] loadScratch = new int[0];

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
    int n = candidates.size();
    if (n == 0) {
      return List.of();
    }
    int[] load = loadsOf(candidates);
    int leastLoaded = leastLoaded(load, n, null);
    int chosen = leastLoaded;
    if (request.prompt().isPresent()) {
      String prompt = request.prompt().get();
      PrefixIndex.Match match = index.longestMatch(prompt);
      boolean affine = match.chars() > 0 && match.chars() >= minMatchRatio * prompt.length();
      if (affine) {
        int favourite = leastLoaded(load, n, match.replicas());
        boolean imbalanced = load[favourite] - load[leastLoaded] > imbalanceAbs
            && load[favourite] > imbalanceRel * load[leastLoaded];
        chosen = imbalanced ? leastLoaded : favourite;
        metrics.affinity(!imbalanced);
      } else {
        metrics.affinity(false);
      }
      index.insert(candidateSlot[chosen], prompt);
    }
    return new Ranks(candidates, chosen, load.clone());
  }

  /** Every candidate's load, read once per decision. */
  private int[] loadsOf(List<ReplicaInfo> candidates) {
    int n = candidates.size();
    if (loadScratch.length < n) {
      loadScratch = new int[n];
    }
    loads.estimatedLoads(candidates, loadScratch);
    return loadScratch;
  }

  /** Index of the least loaded candidate, among {@code among} slots if given; random ties. */
  private int leastLoaded(int[] load, int n, long[] among) {
    int best = -1;
    int ties = 0;
    for (int i = 0; i < n; i++) {
      if (among != null) {
        int slot = candidateSlot[i];
        if ((among[slot >>> 6] & (1L << slot)) == 0) {
          continue;
        }
      }
      if (best < 0 || load[i] < load[best]) {
        best = i;
        ties = 1;
      } else if (load[i] == load[best] && random.nextInt(++ties) == 0) {
        best = i;
      }
    }
    return best;
  }

  /**
   * The chosen replica first, then the others by load (fallbacks on the reserve path), sorted
   * only if someone reads past the first rank: the pick-only path never does.
   */
  private static final class Ranks extends AbstractList<List<ReplicaInfo>>
      implements RandomAccess {
    private final List<ReplicaInfo> candidates;
    private final int chosen;
    private final int[] load;
    private List<ReplicaInfo> rest;

    Ranks(List<ReplicaInfo> candidates, int chosen, int[] load) {
      this.candidates = candidates;
      this.chosen = chosen;
      this.load = load;
    }

    @Override
    public List<ReplicaInfo> get(int index) {
      Objects.checkIndex(index, candidates.size());
      if (index == 0) {
        return List.of(candidates.get(chosen));
      }
      if (rest == null) {
        List<Integer> order = new ArrayList<>(candidates.size() - 1);
        for (int i = 0; i < candidates.size(); i++) {
          if (i != chosen) {
            order.add(i);
          }
        }
        order.sort(Comparator.comparingInt(i -> load[i]));
        rest = order.stream().map(candidates::get).toList();
      }
      return List.of(rest.get(index - 1));
    }

    @Override
    public int size() {
      return candidates.size();
    }
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
    if (!ids.equals(slots.keySet())) {
      assignSlots(ids);
    }
    candidateSlot = new int[replicas.size()];
    for (int i = 0; i < replicas.size(); i++) {
      candidateSlot[i] = slots.get(replicas.get(i).id().uniqueId());
    }
  }

  private void assignSlots(Set<String> ids) {
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
