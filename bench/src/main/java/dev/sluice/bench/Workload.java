package dev.sluice.bench;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What to send: prompt and output lengths, streaming or not, and the shape of the traffic. The
 * presets set lengths and shape; explicit options override their lengths.
 *
 * @param sessions for {@code multi-turn}: conversations, each {@code turns} requests in order
 * @param groups for {@code shared-prefix}: groups of requests sharing one system prompt
 * @param prefixChars the shared system prompt's length in characters
 */
public record Workload(
    String preset,
    Distribution promptTokens,
    Distribution outputTokens,
    boolean stream,
    Optional<String> model,
    int sessions,
    int turns,
    int groups,
    int prefixChars,
    long seed) {

  public static final List<String> PRESETS = List.of("default", "short-prompt-long-decode",
      "long-prompt-short-decode", "mixed", "burst", "multi-turn", "shared-prefix");

  public Workload {
    Objects.requireNonNull(preset, "preset");
    if (!PRESETS.contains(preset)) {
      throw new IllegalArgumentException("--workload: '" + preset + "' (expected one of: "
          + String.join(", ", PRESETS) + ")");
    }
  }

  /** The preset's defaults, overridden by explicit lengths where given. */
  public static Workload of(String preset, Optional<Distribution> prompt,
      Optional<Distribution> output, boolean stream, Optional<String> model, int sessions,
      int turns, int groups, int prefixChars, long seed) {
    String name = preset.toLowerCase(Locale.ROOT);
    Distribution defaultPrompt = switch (name) {
      case "short-prompt-long-decode" -> Distribution.fixed(32);
      case "long-prompt-short-decode" -> Distribution.fixed(2048);
      case "mixed" -> Distribution.parse("--prompt-tokens", "32-2048");
      default -> Distribution.fixed(64);
    };
    Distribution defaultOutput = switch (name) {
      case "short-prompt-long-decode" -> Distribution.fixed(512);
      case "long-prompt-short-decode" -> Distribution.fixed(32);
      case "mixed" -> Distribution.parse("--max-tokens", "32-512");
      default -> Distribution.fixed(256);
    };
    return new Workload(name, prompt.orElse(defaultPrompt), output.orElse(defaultOutput), stream,
        model, sessions, turns, groups, prefixChars, seed);
  }

  public boolean multiTurn() {
    return preset.equals("multi-turn");
  }
}
