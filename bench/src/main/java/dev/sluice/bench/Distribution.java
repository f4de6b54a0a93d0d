package dev.sluice.bench;

import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * A token-length distribution given on the command line: {@code 256} (fixed), {@code 64-512}
 * (uniform), or {@code exp:256} (exponential with that mean, at least 1).
 */
public record Distribution(Kind kind, int a, int b) {

  enum Kind { FIXED, UNIFORM, EXPONENTIAL }

  public static Distribution fixed(int value) {
    return new Distribution(Kind.FIXED, value, value);
  }

  /** Parses {@code spec}; {@code option} names the option in errors. */
  public static Distribution parse(String option, String spec) {
    String text = spec.trim().toLowerCase(Locale.ROOT);
    try {
      if (text.startsWith("exp:")) {
        int mean = Integer.parseInt(text.substring(4));
        if (mean >= 1) {
          return new Distribution(Kind.EXPONENTIAL, mean, mean);
        }
      } else if (text.contains("-")) {
        String[] range = text.split("-", 2);
        int low = Integer.parseInt(range[0]);
        int high = Integer.parseInt(range[1]);
        if (low >= 1 && high >= low) {
          return new Distribution(Kind.UNIFORM, low, high);
        }
      } else {
        int value = Integer.parseInt(text);
        if (value >= 1) {
          return fixed(value);
        }
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(option + ": '" + spec
        + "' (expected: N, LOW-HIGH or exp:MEAN, all >= 1)");
  }

  public int sample(RandomGenerator random) {
    return switch (kind) {
      case FIXED -> a;
      case UNIFORM -> a + random.nextInt(b - a + 1);
      case EXPONENTIAL -> Math.max(1, (int) Math.round(-Math.log(1 - random.nextDouble()) * a));
    };
  }

  @Override
  public String toString() {
    return switch (kind) {
      case FIXED -> Integer.toString(a);
      case UNIFORM -> a + "-" + b;
      case EXPONENTIAL -> "exp:" + a;
    };
  }
}
