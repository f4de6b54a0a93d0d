package dev.sluice.router.testing;

import dev.sluice.router.spi.PolicyMetrics;

/** Counts what a policy reports. */
public final class CountingMetrics implements PolicyMetrics {
  public int rebuilds;
  public int affinityHits;
  public int affinityMisses;

  @Override
  public void indexRebuilt() {
    rebuilds++;
  }

  @Override
  public void affinity(boolean hit) {
    if (hit) {
      affinityHits++;
    } else {
      affinityMisses++;
    }
  }
}
