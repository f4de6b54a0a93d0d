package dev.sluice.core.openai;

import dev.sluice.core.serialization.ClusterMessage;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A validated OpenAI completion request, chat or legacy.
 *
 * @param prompt the prompt text (chat message contents joined with newlines)
 * @param maxTokens tokens to generate for each choice
 * @param explicitLimit whether the client set {@code max_tokens}; reaching it then finishes with
 *     {@code length}, otherwise the simulated answer ends naturally with {@code stop}
 * @param n how many choices to generate (OpenAI's {@code n}), at least 1
 * @param stop the stop strings, none to four; the output ends before the first that appears
 * @param seed the client's {@code seed}, which makes the simulated text reproducible
 */
public record CompletionRequest(
    Kind kind,
    String model,
    String prompt,
    int maxTokens,
    boolean explicitLimit,
    boolean stream,
    boolean includeUsage,
    int n,
    List<String> stop,
    Optional<Long> seed) implements ClusterMessage {

  /** Which OpenAI endpoint the request came to. */
  public enum Kind {
    CHAT,
    COMPLETION
  }

  public CompletionRequest {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(prompt, "prompt");
    stop = List.copyOf(Objects.requireNonNull(stop, "stop"));
    Objects.requireNonNull(seed, "seed");
    if (n < 1) {
      throw new IllegalArgumentException("n: " + n + " (expected: >= 1)");
    }
  }

  /** One choice, no stop strings, no seed: the request as it was before those were parsed. */
  public CompletionRequest(Kind kind, String model, String prompt, int maxTokens,
      boolean explicitLimit, boolean stream, boolean includeUsage) {
    this(kind, model, prompt, maxTokens, explicitLimit, stream, includeUsage, 1, List.of(),
        Optional.empty());
  }

  /** Why a choice that produced all its {@link #maxTokens} without a stop string ended. */
  public String finishReason() {
    return explicitLimit ? "length" : "stop";
  }

  /** Prompt length in tokens as the simulated tokenizer counts it: one per 4 chars, at least 1. */
  public int promptTokens() {
    return promptTokens(prompt);
  }

  /** {@code prompt}'s length in tokens as the simulated tokenizer counts it. */
  public static int promptTokens(String prompt) {
    return Math.max(1, (prompt.length() + 3) / 4);
  }
}
