package dev.sluice.core.testing;

import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Property tests with plain JUnit: a property runs against many random inputs, each try drawn
 * from its own seed, and a failure names the seed so it can be replayed exactly. The base seed is
 * new every run (so runs explore different inputs) unless {@code -Dproperties.seed=N} fixes it;
 * {@code -Dproperties.replay=S} runs only the try with seed {@code S}.
 */
public final class Properties {

  private Properties() {}

  /** Runs {@code property} {@code tries} times, each with a random source of its own. */
  public static void forAll(int tries, Consumer<SplittableRandom> property) {
    Long replay = Long.getLong("properties.replay");
    if (replay != null) {
      run(property, replay, 0);
      return;
    }
    long base = Long.getLong("properties.seed", System.nanoTime());
    SplittableRandom seeds = new SplittableRandom(base);
    for (int attempt = 0; attempt < tries; attempt++) {
      run(property, seeds.nextLong(), attempt);
    }
  }

  private static void run(Consumer<SplittableRandom> property, long seed, int attempt) {
    try {
      property.accept(new SplittableRandom(seed));
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("property failed on try " + attempt + " (replay it with "
          + "-Dproperties.replay=" + seed + "): " + e.getMessage(), e);
    }
  }
}
