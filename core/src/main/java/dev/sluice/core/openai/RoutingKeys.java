package dev.sluice.core.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;

/**
 * What body-aware routing reads from an OpenAI request: the model and the prompt text (chat
 * message contents joined as {@link Prompts#join} does, or {@code prompt}). Lenient: anything it
 * cannot read is simply absent, never an exception.
 */
public record RoutingKeys(Optional<String> model, Optional<String> prompt) {

  public static final RoutingKeys NONE = new RoutingKeys(Optional.empty(), Optional.empty());

  private static final ObjectMapper JSON = new ObjectMapper();

  public static RoutingKeys parse(byte[] body) {
    if (body.length == 0) {
      return NONE;
    }
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (java.io.IOException | RuntimeException e) {
      return NONE;
    }
    if (root == null || !root.isObject()) {
      return NONE;
    }
    JsonNode model = root.get("model");
    return new RoutingKeys(
        model != null && model.isTextual() ? Optional.of(model.asText()) : Optional.empty(),
        Prompts.of(root));
  }
}
