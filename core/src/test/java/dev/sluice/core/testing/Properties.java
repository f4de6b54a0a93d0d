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

  /**
   * A string of up to {@code maxLength} chars from the whole Basic Multilingual Plane except
   * surrogates, noncharacters and private use.
   */
  public static String anyString(SplittableRandom random, int maxLength) {
    int length = size(random, 0, maxLength);
    StringBuilder text = new StringBuilder(length);
    while (text.length() < length) {
      char c = (char) random.nextInt(0x10000);
      boolean excluded = Character.isSurrogate(c) || (c >= 0xfdd0 && c <= 0xfdef)
          || c >= 0xfffe || (c >= 0xe000 && c <= 0xf8ff);
      if (!excluded) {
        text.append(c);
      }
    }
    return text.toString();
  }
  /**
   * A size in [min, max]: uniform over a range of at most 14; otherwise at most min + 14 most of
   * the time (small inputs are quick and read well when they fail), longer about one time in
   * eight, max itself one time in fifty.
   */
  public static int size(SplittableRandom random, int min, int max) {
    int cutoff = min + 14;
    if (cutoff >= max) {
      return random.nextInt(min, max + 1);
    }
    double roll = random.nextDouble();
    return roll < 0.02 ? max
        : roll < 0.14 ? random.nextInt(cutoff + 1, max + 1)
        : random.nextInt(min, cutoff + 1);
  }
  /**
   * An int in [min, max]: min or max one time in ten; otherwise uniform over up to 21 values and,
   * over a wider range, small values as often as large ones (the range cut in thirds toward min,
   * one piece chosen evenly, uniform within it).
   */
  public static int between(SplittableRandom random, int min, int max) {
    int roll = random.nextInt(20);
    if (roll < 2) {
      return roll == 0 ? min : max;
    }
    int pieces = 1;
    for (int rest = max - min; rest > 20; rest /= 3) {
      pieces++;
    }
    int piece = random.nextInt(pieces);
    int high = max - min;
    for (int i = 0; i < piece; i++) {
      high /= 3;
    }
    int low = piece == pieces - 1 ? 0 : high / 3 + 1;
    return min + random.nextInt(low, high + 1);
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
