package dev.sluice.router.spi;

/** What a policy may report about itself, beyond the router's own decision metrics. */
public interface PolicyMetrics {

  /** The consistent-hash ring (or another index) was rebuilt. */
  void indexRebuilt();

  /** A decision that could follow affinity did ({@code true}) or could not ({@code false}). */
  void affinity(boolean hit);

  PolicyMetrics NONE = new PolicyMetrics() {
    @Override
    public void indexRebuilt() {}

    @Override
    public void affinity(boolean hit) {}
  };
}
