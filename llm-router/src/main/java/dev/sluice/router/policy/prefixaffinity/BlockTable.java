package dev.sluice.router.policy.prefixaffinity;

import java.util.Arrays;

/**
 * Block hash to block id: an open-addressing hash table of primitive longs (no boxing on the
 * routing hot path), linear probing, backward-shift deletion, resized at half full. Ids are
 * small dense ints, reused after removal, so that per-block data can live in flat arrays.
 */
final class BlockTable {

  private long[] keys = new long[1024];
  private int[] ids = new int[1024];
  private boolean[] used = new boolean[1024];
  private int size;
  private int[] freeIds = new int[64];
  private int freeCount;
  private int nextId;

  /** The id of {@code key}, or -1. */
  int find(long key) {
    int mask = keys.length - 1;
    for (int i = mix(key) & mask; used[i]; i = (i + 1) & mask) {
      if (keys[i] == key) {
        return ids[i];
      }
    }
    return -1;
  }

  /** The id of {@code key}, adding it with a fresh id if absent. */
  int findOrAdd(long key) {
    int mask = keys.length - 1;
    int i = mix(key) & mask;
    for (; used[i]; i = (i + 1) & mask) {
      if (keys[i] == key) {
        return ids[i];
      }
    }
    int id = freeCount > 0 ? freeIds[--freeCount] : nextId++;
    used[i] = true;
    keys[i] = key;
    ids[i] = id;
    if (++size * 2 > keys.length) {
      resize(keys.length * 2);
    }
    return id;
  }

  /** Removes {@code key}; its id becomes free for reuse. */
  void remove(long key) {
    int mask = keys.length - 1;
    int i = mix(key) & mask;
    while (used[i] && keys[i] != key) {
      i = (i + 1) & mask;
    }
    if (!used[i]) {
      return;
    }
    if (freeCount == freeIds.length) {
      freeIds = Arrays.copyOf(freeIds, freeIds.length * 2);
    }
    freeIds[freeCount++] = ids[i];
    used[i] = false;
    size--;
    // Backward-shift: pull later entries of the probe run into the hole.
    int hole = i;
    for (int j = (i + 1) & mask; used[j]; j = (j + 1) & mask) {
      int home = mix(keys[j]) & mask;
      boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        keys[hole] = keys[j];
        ids[hole] = ids[j];
        used[hole] = true;
        used[j] = false;
        hole = j;
      }
    }
  }

  /** One past the largest id handed out (ids are below this). */
  int idLimit() {
    return nextId;
  }

  int size() {
    return size;
  }

  private void resize(int capacity) {
    long[] oldKeys = keys;
    int[] oldIds = ids;
    boolean[] oldUsed = used;
    keys = new long[capacity];
    ids = new int[capacity];
    used = new boolean[capacity];
    int mask = capacity - 1;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldUsed[i]) {
        int j = mix(oldKeys[i]) & mask;
        while (used[j]) {
          j = (j + 1) & mask;
        }
        used[j] = true;
        keys[j] = oldKeys[i];
        ids[j] = oldIds[i];
      }
    }
  }

  private static int mix(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }
}
