package dev.sluice.router.spi;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A policy's {@code request_router_kwargs}, read with validation: unknown names and bad values
 * fail with the kwarg named, e.g. {@code num_virtual_nodes: 0 (expected: > 0)}.
 */
public final class Kwargs {

  private final String policy;
  private final Map<String, Object> values;

  public Kwargs(String policy, Map<String, Object> values) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.values = Map.copyOf(values);
  }

  public Map<String, Object> asMap() {
    return values;
  }

  /** Fails if a kwarg other than {@code allowed} is present. */
  public Kwargs allowOnly(String... allowed) {
    Set<String> known = Set.of(allowed);
    for (String name : values.keySet()) {
      if (!known.contains(name)) {
        throw new IllegalArgumentException("request_router_kwargs." + name + ": unknown for "
            + policy + " (expected one of: "
            + (known.isEmpty() ? "none" : String.join(", ", new TreeSet<>(known))) + ")");
      }
    }
    return this;
  }

  /** An integer greater than 0. */
  public int positiveInt(String name, int defaultValue) {
    int value = integer(name, defaultValue);
    if (value <= 0) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
    }
    return value;
  }

  /** An integer of at least 0. */
  public int nonNegativeInt(String name, int defaultValue) {
    int value = integer(name, defaultValue);
    if (value < 0) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0)");
    }
    return value;
  }

  /** A number in [0, 1]. */
  public double ratio(String name, double defaultValue) {
    double value = number(name, defaultValue);
    if (value < 0 || value > 1) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: 0..1)");
    }
    return value;
  }

  /** A number of at least {@code min}. */
  public double atLeast(String name, double defaultValue, double min) {
    double value = number(name, defaultValue);
    if (value < min) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: >= " + min + ")");
    }
    return value;
  }

  private int integer(String name, int defaultValue) {
    Object value = values.get(name);
    if (value == null) {
      return defaultValue;
    }
    if (!(value instanceof Long || value instanceof Integer)
        || ((Number) value).longValue() != ((Number) value).intValue()) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: an integer)");
    }
    return ((Number) value).intValue();
  }

  private double number(String name, double defaultValue) {
    Object value = values.get(name);
    if (value == null) {
      return defaultValue;
    }
    if (!(value instanceof Number number)) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: a number)");
    }
    return number.doubleValue();
  }
}
