package dev.sluice.replica.engine;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The simulated engine's KV cache with prefix caching: a prompt is cut into blocks of
 * {@code blockChars} characters (one block = 16 tokens at 4 characters per token), each identified
 * by the hash of its content chained with the previous block's, like vLLM's block hashes. A
 * lookup counts the leading blocks already cached; storing a prompt caches all its full blocks;
 * blocks beyond the capacity are evicted least recently used first. Thread-safe.
 */
final class PrefixCache {

  private final int blockChars;
  private final int capacityBlocks;
  private final LinkedHashMap<Long, Boolean> blocks;
  private long queriedTokens;
  private long hitTokens;

  PrefixCache(int blockChars, int capacityBlocks) {
    this.blockChars = blockChars;
    this.capacityBlocks = capacityBlocks;
    this.blocks = new LinkedHashMap<>(Math.min(capacityBlocks, 1 << 16), 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
        return size() > PrefixCache.this.capacityBlocks;
      }
    };
  }

  /**
   * Looks the prompt up, then caches its blocks. Returns the number of leading characters that
   * were already cached (a multiple of the block size).
   */
  synchronized int lookupAndStore(String prompt, int promptTokens) {
    int fullBlocks = prompt.length() / blockChars;
    long hash = 0x9E3779B97F4A7C15L;
    int cachedBlocks = 0;
    boolean stillHitting = true;
    for (int b = 0; b < fullBlocks; b++) {
      hash = chain(hash, prompt, b * blockChars);
      if (stillHitting && blocks.get(hash) != null) {
        cachedBlocks++;
      } else {
        stillHitting = false;
        blocks.put(hash, Boolean.TRUE);
      }
    }
    int cachedChars = cachedBlocks * blockChars;
    queriedTokens += promptTokens;
    hitTokens += Math.min(promptTokens, cachedChars / 4);
    return cachedChars;
  }

  synchronized double hitRatio() {
    return queriedTokens == 0 ? 0 : (double) hitTokens / queriedTokens;
  }

  synchronized int usedBlocks() {
    return blocks.size();
  }

  int capacityBlocks() {
    return capacityBlocks;
  }

  private long chain(long previous, String prompt, int from) {
    long hash = previous;
    for (int i = from; i < from + blockChars; i++) {
      hash = (hash ^ prompt.charAt(i)) * 0x100000001B3L;
    }
    return hash ^ (hash >>> 31);
  }
}
