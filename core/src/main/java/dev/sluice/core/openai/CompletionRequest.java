package dev.sluice.core.openai;

import dev.sluice.core.serialization.ClusterMessage;
import java.util.Objects;

/**
 * A validated OpenAI completion request, chat or legacy.
 *
 * @param prompt the prompt text (chat message contents joined with newlines)
 * @param maxTokens tokens to generate
 * @param explicitLimit whether the client set {@code max_tokens}; reaching it then finishes with
 *     {@code length}, otherwise the simulated answer ends naturally with {@code stop}
 */
public record CompletionRequest(
    Kind kind,
    String model,
    String prompt,
    int maxTokens,
    boolean explicitLimit,
    boolean stream,
    boolean includeUsage) implements ClusterMessage {

  /** Which OpenAI endpoint the request came to. */
  public enum Kind {
    CHAT,
    COMPLETION
  }

  public CompletionRequest {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(prompt, "prompt");
  }

  public String finishReason() {
    return explicitLimit ? "length" : "stop";
  }

  /** Prompt length in tokens as the simulated tokenizer counts it: one per 4 chars, at least 1. */
  public int promptTokens() {
    return Math.max(1, (prompt.length() + 3) / 4);
  }
}
