package dev.sluice.replica.engine;

import java.util.Objects;

/**
 * One request to an engine.
 *
 * @param prompt the prompt text (chat messages already joined)
 * @param maxTokens how many tokens to generate at most
 */
public record GenerationRequest(String requestId, String prompt, int maxTokens) {

  public GenerationRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(prompt, "prompt");
    if (maxTokens < 1) {
      throw new IllegalArgumentException("maxTokens: " + maxTokens + " (expected: >= 1)");
    }
  }
}
