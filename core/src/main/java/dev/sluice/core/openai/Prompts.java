package dev.sluice.core.openai;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * The prompt text of an OpenAI request, the same everywhere it is needed (the engine's prefix
 * cache and the router's prefix affinity must agree on it): chat message contents in order, text
 * parts concatenated, messages separated by a newline; or the completion {@code prompt}.
 */
public final class Prompts {

  private Prompts() {}

  /** The prompt of a parsed request, if it has one in a readable shape. */
  public static Optional<String> of(JsonNode root) {
    JsonNode messages = root.get("messages");
    if (messages != null && messages.isArray()) {
      StringBuilder prompt = new StringBuilder();
      for (int i = 0; i < messages.size(); i++) {
        JsonNode message = messages.get(i);
        Optional<String> content = message.isObject() ? content(message.get("content"))
            : Optional.empty();
        if (content.isEmpty()) {
          return Optional.empty();
        }
        if (i > 0) {
          prompt.append('\n');
        }
        prompt.append(content.get());
      }
      return Optional.of(prompt.toString());
    }
    JsonNode prompt = root.get("prompt");
    if (prompt != null && prompt.isTextual()) {
      return Optional.of(prompt.asText());
    }
    if (prompt != null && prompt.isArray() && prompt.size() == 1 && prompt.get(0).isTextual()) {
      return Optional.of(prompt.get(0).asText());
    }
    return Optional.empty();
  }

  /** A message's content as text: a string, or the concatenated {@code text} of its parts. */
  public static Optional<String> content(JsonNode content) {
    if (content == null || content.isNull()) {
      return Optional.of("");
    }
    if (content.isTextual()) {
      return Optional.of(content.asText());
    }
    if (content.isArray()) {
      StringBuilder text = new StringBuilder();
      for (JsonNode part : content) {
        JsonNode partText = part.isObject() ? part.get("text") : null;
        if (partText == null || !partText.isTextual()) {
          return Optional.empty();
        }
        text.append(partText.asText());
      }
      return Optional.of(text.toString());
    }
    return Optional.empty();
  }
}
