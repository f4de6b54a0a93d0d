package dev.sluice.router.policy.prefixaffinity;

import java.util.Arrays;

/**
 * An approximate prefix tree over prompt text, shared by all replicas of a deployment: a prompt
 * is cut into blocks of {@code blockChars} characters, each identified by the hash of its content
 * chained with the previous block's, so equal hashes mean equal prefixes (up to collisions:
 * approximate). Each block records which replica slots hold it (a bitset). Each replica holds at
 * most {@code maxBlocks} blocks; beyond that it forgets one by CLOCK (second chance), the usual
 * approximation of least-recently-used: a block used again since the hand last passed survives
 * one more round. Flat primitive arrays throughout; not thread-safe (the router's one thread).
 */
final class PrefixIndex {

  private final int blockChars;
  private final int maxBlocks;
  private final int words;
  private final BlockTable table = new BlockTable();
  /** Per block id: its hash (to remove it), owner bits and referenced bits, words per block. */
  private long[] blockKeys = new long[1024];
  private long[] owners;
  private long[] referenced;
  private final Clock[] clocks;
  private final long[] survivorsA;
  private final long[] survivorsB;
  private long[] hashes = new long[128];
  private int[] matchedIds = new int[128];
  private String hashedPrompt;
  private String matchedPrompt;
  private int matchedBlocks;

  /** The result of a lookup: how many leading characters matched, and on which replica slots. */
  record Match(int chars, long[] replicas) {}

  PrefixIndex(int slots, int blockChars, int maxBlocks) {
    this.blockChars = blockChars;
    this.maxBlocks = maxBlocks;
    this.words = Math.max(1, (slots + 63) / 64);
    this.owners = new long[blockKeys.length * words];
    this.referenced = new long[blockKeys.length * words];
    this.clocks = new Clock[slots];
    for (int i = 0; i < slots; i++) {
      clocks[i] = new Clock();
    }
    this.survivorsA = new long[words];
    this.survivorsB = new long[words];
  }

  /**
   * The longest prefix of {@code prompt} some replica holds (in whole blocks), and the replicas
   * that hold it. No match gives 0 chars and an empty set.
   */
  Match longestMatch(String prompt) {
    int blocks = hash(prompt);
    long[] survivors = survivorsA;
    long[] next = survivorsB;
    Arrays.fill(survivors, -1L);
    int matched = 0;
    for (int b = 0; b < blocks; b++) {
      int id = table.find(hashes[b]);
      if (id < 0) {
        break;
      }
      boolean any = false;
      int base = id * words;
      for (int w = 0; w < words; w++) {
        next[w] = survivors[w] & owners[base + w];
        any |= next[w] != 0;
      }
      if (!any) {
        break;
      }
      matchedIds[b] = id;
      long[] swap = survivors;
      survivors = next;
      next = swap;
      matched = b + 1;
    }
    matchedPrompt = prompt;
    matchedBlocks = matched;
    return matched == 0 ? new Match(0, new long[words])
        : new Match(matched * blockChars, survivors.clone());
  }

  /** Records that replica {@code slot} now holds every full block of {@code prompt}. */
  void insert(int slot, String prompt) {
    int blocks = hash(prompt);
    int known = prompt == matchedPrompt ? matchedBlocks : 0;
    int word = slot >>> 6;
    long bit = 1L << slot;
    for (int b = 0; b < blocks; b++) {
      int id = b < known ? matchedIds[b] : idFor(hashes[b]);
      int at = id * words + word;
      if ((owners[at] & bit) != 0) {
        referenced[at] |= bit;
      } else {
        owners[at] |= bit;
        clocks[slot].push(id);
        if (clocks[slot].size > maxBlocks) {
          evictOne(slot);
        }
      }
    }
  }

  /** Forgets everything replica {@code slot} held (it left the set). */
  void clear(int slot) {
    Clock clock = clocks[slot];
    while (clock.size > 0) {
      disown(slot, clock.pop());
    }
    matchedPrompt = null;
  }

  int blocksHeld(int slot) {
    return clocks[slot].size;
  }

  int blockCount() {
    return table.size();
  }

  private int idFor(long key) {
    int id = table.findOrAdd(key);
    if (id >= blockKeys.length) {
      int capacity = Math.max(blockKeys.length * 2, id + 1);
      blockKeys = Arrays.copyOf(blockKeys, capacity);
      owners = Arrays.copyOf(owners, capacity * words);
      referenced = Arrays.copyOf(referenced, capacity * words);
    }
    blockKeys[id] = key;
    return id;
  }

  /** CLOCK: pass over referenced blocks (clearing the mark) and forget the first unmarked one. */
  private void evictOne(int slot) {
    Clock clock = clocks[slot];
    long bit = 1L << slot;
    int word = slot >>> 6;
    while (clock.size > 0) {
      int id = clock.pop();
      int at = id * words + word;
      if ((referenced[at] & bit) != 0) {
        referenced[at] &= ~bit;
        clock.push(id);
      } else {
        disown(slot, id);
        return;
      }
    }
  }

  private void disown(int slot, int id) {
    int base = id * words;
    owners[base + (slot >>> 6)] &= ~(1L << slot);
    referenced[base + (slot >>> 6)] &= ~(1L << slot);
    for (int w = 0; w < words; w++) {
      if (owners[base + w] != 0) {
        return;
      }
    }
    table.remove(blockKeys[id]);
    matchedPrompt = null;
  }

  /** Fills {@link #hashes} with the prompt's chained block hashes; returns the block count. */
  private int hash(String prompt) {
    int blocks = prompt.length() / blockChars;
    if (prompt == hashedPrompt) {
      return blocks;
    }
    if (hashes.length < blocks) {
      hashes = new long[blocks];
      matchedIds = new int[blocks];
    }
    long previous = 0xCBF29CE484222325L;
    for (int b = 0; b < blocks; b++) {
      previous = BlockHash.of(prompt, b * blockChars, blockChars, previous);
      hashes[b] = previous;
    }
    hashedPrompt = prompt;
    return blocks;
  }

  /** A replica's blocks in CLOCK order: a ring of block ids that grows as needed. */
  private static final class Clock {
    int[] ring = new int[256];
    int head;
    int size;

    void push(int id) {
      if (size == ring.length) {
        int[] bigger = new int[ring.length * 2];
        for (int i = 0; i < size; i++) {
          bigger[i] = ring[(head + i) % ring.length];
        }
        ring = bigger;
        head = 0;
      }
      ring[(head + size++) % ring.length] = id;
    }

    int pop() {
      int id = ring[head];
      head = (head + 1) % ring.length;
      size--;
      return id;
    }
  }
}
