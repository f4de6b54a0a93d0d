package dev.sluice.router.spi;

import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * What the router gives a policy when it creates it: the load view, a metrics sink and a random
 * source (seedable in tests).
 */
public record RouterContext(LoadView loads, PolicyMetrics metrics, RandomGenerator random) {

  public RouterContext {
    Objects.requireNonNull(loads, "loads");
    Objects.requireNonNull(metrics, "metrics");
    Objects.requireNonNull(random, "random");
  }

  /** No load knowledge, no metrics, a seeded random: for table-driven tests. */
  public static RouterContext forTests(long seed) {
    return new RouterContext(LoadView.NONE, PolicyMetrics.NONE,
        new java.util.SplittableRandom(seed));
  }
}
