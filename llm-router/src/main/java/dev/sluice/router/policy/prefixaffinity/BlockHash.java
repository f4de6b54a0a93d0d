package dev.sluice.router.policy.prefixaffinity;

/**
 * The chained hash of one block of prompt text. Four independent multiply lanes keep the CPU's
 * multipliers busy (a single FNV-style chain is bound by multiply latency, about 3x slower on
 * 4 KiB prompts). The same text after the same previous block always gives the same hash.
 */
final class BlockHash {

  private static final long PRIME = 0x100000001B3L;

  private BlockHash() {}

  static long of(String text, int from, int length, long previous) {
    int end = from + length;
    long h0 = previous;
    long h1 = previous ^ 0x9E3779B97F4A7C15L;
    long h2 = previous ^ 0xC2B2AE3D27D4EB4FL;
    long h3 = previous ^ 0x165667B19E3779F9L;
    int i = from;
    for (; i + 3 < end; i += 4) {
      h0 = (h0 ^ text.charAt(i)) * PRIME;
      h1 = (h1 ^ text.charAt(i + 1)) * PRIME;
      h2 = (h2 ^ text.charAt(i + 2)) * PRIME;
      h3 = (h3 ^ text.charAt(i + 3)) * PRIME;
    }
    for (; i < end; i++) {
      h0 = (h0 ^ text.charAt(i)) * PRIME;
    }
    long hash = h0 * 31 + Long.rotateLeft(h1, 17) * 37 + Long.rotateLeft(h2, 29) * 41
        + Long.rotateLeft(h3, 43);
    return hash ^ (hash >>> 29);
  }
}
