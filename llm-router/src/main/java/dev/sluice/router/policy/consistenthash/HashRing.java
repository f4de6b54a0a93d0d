package dev.sluice.router.policy.consistenthash;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.commons.codec.digest.MurmurHash3;

/**
 * An immutable consistent-hash ring: {@code virtualNodes} points per owner at
 * {@code hash("<owner>:<i>")}, sorted as unsigned 64-bit values. The hash is MurmurHash3 x64
 * 128-bit (Commons Codec's {@code hash128x64}, seed treated as unsigned) with seed
 * {@value #SEED_HEX}, keeping the low 64 bits — the same points Ray's ring computes.
 */
final class HashRing {

  static final int SEED = 0xF9B4CA77;
  static final String SEED_HEX = "0xF9B4CA77";

  /** Ring points with the sign bit flipped, so that signed order is unsigned order. */
  private final long[] points;
  private final int[] owners;
  private final int ownerCount;

  HashRing(List<String> ownerKeys, int virtualNodes) {
    int size = ownerKeys.size() * virtualNodes;
    long[] flipped = new long[size];
    int[] owner = new int[size];
    Integer[] order = new Integer[size];
    int p = 0;
    for (int o = 0; o < ownerKeys.size(); o++) {
      for (int i = 0; i < virtualNodes; i++) {
        flipped[p] = hash(ownerKeys.get(o) + ":" + i) ^ Long.MIN_VALUE;
        owner[p] = o;
        order[p] = p;
        p++;
      }
    }
    // Ties (astronomically unlikely) resolve by owner index, so every router builds the same ring.
    Arrays.sort(order, (a, b) -> flipped[a] != flipped[b] ? Long.compare(flipped[a], flipped[b])
        : Integer.compare(owner[a], owner[b]));
    this.points = new long[size];
    this.owners = new int[size];
    for (int i = 0; i < size; i++) {
      points[i] = flipped[order[i]];
      owners[i] = owner[order[i]];
    }
    this.ownerCount = ownerKeys.size();
  }

  /** The low 64 bits of MurmurHash3 x64 128 of the UTF-8 bytes of {@code key}, seed 0xF9B4CA77. */
  static long hash(String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    return MurmurHash3.hash128x64(bytes, 0, bytes.length, SEED)[0];
  }

  boolean isEmpty() {
    return points.length == 0;
  }

  /** Index of the first point clockwise of {@code keyHash} (at or after it), wrapping. */
  int firstPointAtOrAfter(long keyHash) {
    int index = Arrays.binarySearch(points, keyHash ^ Long.MIN_VALUE);
    if (index < 0) {
      index = -index - 1;
    } else {
      while (index > 0 && points[index - 1] == points[index]) {
        index--;
      }
    }
    return index == points.length ? 0 : index;
  }

  /**
   * Writes up to {@code max} distinct owners, walking clockwise from point {@code start}, into
   * {@code out}; returns how many.
   */
  int distinctOwnersFrom(int start, int max, int[] out) {
    int found = 0;
    int limit = Math.min(max, ownerCount);
    for (int step = 0; step < points.length && found < limit; step++) {
      int owner = owners[(start + step) % points.length];
      boolean seen = false;
      for (int i = 0; i < found; i++) {
        if (out[i] == owner) {
          seen = true;
          break;
        }
      }
      if (!seen) {
        out[found++] = owner;
      }
    }
    return found;
  }
}
