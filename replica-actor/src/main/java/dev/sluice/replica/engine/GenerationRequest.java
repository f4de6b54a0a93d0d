package dev.sluice.replica.engine;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One request to an engine: one choice of a client's request.
 *
 * @param prompt the prompt text (chat messages already joined)
 * @param maxTokens how many tokens to generate at most
 * @param seed the client's {@code seed}: the same prompt, seed and choice give the same tokens
 * @param choice which of the client's {@code n} choices this is, from 0; the simulated engine
 *     gives each choice its own text
 * @param stop the stop strings: the engine ends after the token that completes one (the caller
 *     cuts the text; the engine only stops generating)
 */
public record GenerationRequest(String requestId, String prompt, int maxTokens,
    Optional<Long> seed, int choice, List<String> stop) {

  public GenerationRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(seed, "seed");
    stop = List.copyOf(Objects.requireNonNull(stop, "stop"));
    if (maxTokens < 1) {
      throw new IllegalArgumentException("maxTokens: " + maxTokens + " (expected: >= 1)");
    }
    if (choice < 0) {
      throw new IllegalArgumentException("choice: " + choice + " (expected: >= 0)");
    }
  }

  /** The only choice, no seed, no stop strings. */
  public GenerationRequest(String requestId, String prompt, int maxTokens) {
    this(requestId, prompt, maxTokens, Optional.empty(), 0, List.of());
  }
}
