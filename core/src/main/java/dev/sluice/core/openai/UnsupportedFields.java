package dev.sluice.core.openai;

import static dev.sluice.core.openai.JsonFields.field;
import static dev.sluice.core.openai.JsonFields.invalid;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Fields asking for what a text-only engine (the simulated one) cannot do: tool calls, JSON
 * output, log probabilities, echo, best-of and suffix. Refused with 400 naming the field rather
 * than silently ignored, so a client never takes plain text for what it asked.
 */
final class UnsupportedFields {

  private static final String NO_TOOLS = "; the engine does not call tools";
  private static final String NO_LOGPROBS = "; the engine computes no log probabilities";

  private UnsupportedFields() {}

  static void reject(CompletionRequest.Kind kind, JsonNode root) {
    JsonNode tools = field(root, "tools");
    if (tools != null && !(tools.isArray() && tools.isEmpty())) {
      throw invalid("tools", tools, "none or []" + NO_TOOLS);
    }
    JsonNode toolChoice = field(root, "tool_choice");
    if (toolChoice != null && !(toolChoice.isTextual() && toolChoice.asText().equals("none"))) {
      throw invalid("tool_choice", toolChoice, "\"none\"" + NO_TOOLS);
    }
    JsonNode format = field(root, "response_format");
    if (format != null && !(format.isObject() && format.path("type").asText().equals("text"))) {
      throw invalid("response_format", format,
          "{\"type\": \"text\"}; the engine does not constrain its output to JSON");
    }
    JsonNode logprobs = field(root, "logprobs");
    if (logprobs != null && !(kind == CompletionRequest.Kind.CHAT && logprobs.isBoolean()
        && !logprobs.booleanValue())) {
      throw invalid("logprobs", logprobs,
          (kind == CompletionRequest.Kind.CHAT ? "false" : "null") + NO_LOGPROBS);
    }
    JsonNode topLogprobs = field(root, "top_logprobs");
    if (topLogprobs != null) {
      throw invalid("top_logprobs", topLogprobs, "null" + NO_LOGPROBS);
    }
    JsonNode echo = field(root, "echo");
    if (echo != null && !(echo.isBoolean() && !echo.booleanValue())) {
      throw invalid("echo", echo, "false; the engine does not echo the prompt");
    }
    JsonNode bestOf = field(root, "best_of");
    if (bestOf != null && !(JsonFields.isInt(bestOf) && bestOf.intValue() == 1)) {
      throw invalid("best_of", bestOf, "1; the engine generates no candidates to choose from");
    }
    JsonNode suffix = field(root, "suffix");
    if (suffix != null) {
      throw invalid("suffix", suffix, "null; the engine does not insert text");
    }
  }
}
