package dev.sluice.router.policy.prefixaffinity;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An approximate prefix tree over prompt text, shared by all replicas of a deployment: a prompt
 * is cut into blocks of {@code blockChars} characters, each block identified by the hash of its
 * content chained with the previous block's, so that equal hashes mean equal prefixes (up to
 * collisions: approximate). Each block maps to the set of replicas (a bitset over replica slots)
 * that have served a prompt starting with it. Each replica keeps at most {@code maxBlocks} blocks,
 * evicting the least recently used ones. Not thread-safe: the router calls it from one thread.
 */
final class PrefixIndex {

  private final int blockChars;
  private final int maxBlocks;
  private final int words;
  private final Map<Long, long[]> owners = new HashMap<>();
  private final ReplicaBlocks[] replicas;
  private final long[] scratchA;
  private final long[] scratchB;
  private final long[] hashes = new long[64];

  /** The result of a lookup: how many leading characters matched, and on which replicas. */
  record Match(int chars, long[] replicas) {}

  PrefixIndex(int slots, int blockChars, int maxBlocks) {
    this.blockChars = blockChars;
    this.maxBlocks = maxBlocks;
    this.words = Math.max(1, (slots + 63) / 64);
    this.replicas = new ReplicaBlocks[slots];
    for (int i = 0; i < slots; i++) {
      replicas[i] = new ReplicaBlocks(i);
    }
    this.scratchA = new long[words];
    this.scratchB = new long[words];
  }

  int blockChars() {
    return blockChars;
  }

  /**
   * The longest prefix of {@code prompt} some replica has served (in whole blocks), and the
   * replicas that have it. No match gives 0 chars and an empty set.
   */
  Match longestMatch(String prompt) {
    long[] chain = blockHashes(prompt);
    int blocks = prompt.length() / blockChars;
    long[] survivors = scratchA;
    long[] next = scratchB;
    Arrays.fill(survivors, -1L);
    int matched = 0;
    for (int b = 0; b < blocks; b++) {
      long[] have = owners.get(chain[b]);
      if (have == null) {
        break;
      }
      boolean any = false;
      for (int w = 0; w < words; w++) {
        next[w] = survivors[w] & have[w];
        any |= next[w] != 0;
      }
      if (!any) {
        break;
      }
      long[] swap = survivors;
      survivors = next;
      next = swap;
      matched = b + 1;
    }
    return matched == 0 ? new Match(0, new long[words])
        : new Match(matched * blockChars, survivors.clone());
  }

  /** Records that replica {@code slot} now holds every full block of {@code prompt}. */
  void insert(int slot, String prompt) {
    long[] chain = blockHashes(prompt);
    int blocks = prompt.length() / blockChars;
    ReplicaBlocks held = replicas[slot];
    for (int b = 0; b < blocks; b++) {
      long hash = chain[b];
      if (held.put(hash, Boolean.TRUE) == null) {
        owners.computeIfAbsent(hash, h -> new long[words])[slot >>> 6] |= 1L << slot;
      }
    }
  }

  /** Forgets everything replica {@code slot} held (it left the set). */
  void clear(int slot) {
    ReplicaBlocks held = replicas[slot];
    for (Long hash : held.keySet()) {
      unown(hash, slot);
    }
    held.clear();
  }

  int blocksHeld(int slot) {
    return replicas[slot].size();
  }

  private void unown(long hash, int slot) {
    long[] have = owners.get(hash);
    if (have == null) {
      return;
    }
    have[slot >>> 6] &= ~(1L << slot);
    for (long word : have) {
      if (word != 0) {
        return;
      }
    }
    owners.remove(hash);
  }

  /**
   * Chained block hashes: block b's hash covers its characters and block b-1's hash. Four
   * independent multiply lanes per block keep the CPU's multipliers busy (a single FNV-style
   * chain is bound by multiply latency, about 3x slower on 4 KiB prompts).
   */
  private long[] blockHashes(String prompt) {
    int blocks = prompt.length() / blockChars;
    long[] chain = blocks <= hashes.length ? hashes : new long[blocks];
    long previous = 0xCBF29CE484222325L;
    for (int b = 0; b < blocks; b++) {
      int from = b * blockChars;
      int end = from + blockChars;
      long h0 = previous;
      long h1 = previous ^ 0x9E3779B97F4A7C15L;
      long h2 = previous ^ 0xC2B2AE3D27D4EB4FL;
      long h3 = previous ^ 0x165667B19E3779F9L;
      int i = from;
      for (; i + 3 < end; i += 4) {
        h0 = (h0 ^ prompt.charAt(i)) * 0x100000001B3L;
        h1 = (h1 ^ prompt.charAt(i + 1)) * 0x100000001B3L;
        h2 = (h2 ^ prompt.charAt(i + 2)) * 0x100000001B3L;
        h3 = (h3 ^ prompt.charAt(i + 3)) * 0x100000001B3L;
      }
      for (; i < end; i++) {
        h0 = (h0 ^ prompt.charAt(i)) * 0x100000001B3L;
      }
      long hash = h0 * 31 + Long.rotateLeft(h1, 17) * 37 + Long.rotateLeft(h2, 29) * 41
          + Long.rotateLeft(h3, 43);
      hash ^= hash >>> 29;
      chain[b] = hash;
      previous = hash;
    }
    return chain;
  }

  /** One replica's blocks in LRU order; evicting a block removes the replica from its owners. */
  private final class ReplicaBlocks extends LinkedHashMap<Long, Boolean> {
    private final int slot;

    ReplicaBlocks(int slot) {
      super(16, 0.75f, true);
      this.slot = slot;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
      if (size() > maxBlocks) {
        unown(eldest.getKey(), slot);
        return true;
      }
      return false;
    }
  }
}
