package dev.sluice.core.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.http.ApiError;
import dev.sluice.core.openai.Prompts;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * Parses and validates an OpenAI request body. Every error is an {@link ApiError} naming the
 * field: {@code max_tokens: -1 (expected: >= 1)}.
 */
public final class CompletionRequestParser {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> ROLES =
      Set.of("system", "developer", "user", "assistant", "tool", "function");

  private final String servedModel;
  private final int defaultMaxTokens;
  private final int maxModelLen;

  public CompletionRequestParser(String servedModel, int defaultMaxTokens, int maxModelLen) {
    this.servedModel = servedModel;
    this.defaultMaxTokens = defaultMaxTokens;
    this.maxModelLen = maxModelLen;
  }

  public CompletionRequest parse(CompletionRequest.Kind kind, byte[] body) {
    if (!isUtf8(body)) {
      throw new ApiError(ApiError.Code.INVALID_JSON,
          "Invalid JSON body: not UTF-8 (expected: UTF-8, RFC 8259 section 8.1)", null);
    }
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw new ApiError(ApiError.Code.INVALID_JSON,
          "Invalid JSON body: " + e.getOriginalMessage(), null);
    } catch (java.io.IOException e) {
      throw new ApiError(ApiError.Code.INVALID_JSON, "Unreadable body: " + e.getMessage(), null);
    }
    if (root == null || !root.isObject()) {
      throw new ApiError(ApiError.Code.INVALID_JSON,
          "Request body must be a JSON object", null);
    }
    String model = model(root);
    String prompt = kind == CompletionRequest.Kind.CHAT ? messages(root) : prompt(root);
    JsonNode limit = field(root, "max_completion_tokens");
    String limitName = "max_completion_tokens";
    if (limit == null) {
      limit = field(root, "max_tokens");
      limitName = "max_tokens";
    }
    int maxTokens = defaultMaxTokens;
    if (limit != null) {
      if (!limit.isIntegralNumber() || !limit.canConvertToInt()) {
        throw ApiError.invalid(limitName,
            limitName + ": " + abbreviate(limit) + " (expected: an integer >= 1)");
      }
      maxTokens = limit.intValue();
      if (maxTokens < 1) {
        throw ApiError.invalid(limitName, limitName + ": " + maxTokens + " (expected: >= 1)");
      }
      if (maxTokens > maxModelLen) {
        throw ApiError.invalid(limitName,
            limitName + ": " + maxTokens + " (expected: <= " + maxModelLen + ")");
      }
    }
    JsonNode n = field(root, "n");
    // canConvertToInt first: intValue() wraps, so 4294967297 would pass as 1.
    if (n != null && !(n.isIntegralNumber() && n.canConvertToInt() && n.intValue() == 1)) {
      throw ApiError.invalid("n", "n: " + abbreviate(n) + " (expected: 1)");
    }
    boolean stream = bool(root, "stream");
    boolean includeUsage = false;
    JsonNode options = field(root, "stream_options");
    if (options != null) {
      if (!options.isObject()) {
        throw ApiError.invalid("stream_options",
            "stream_options: " + abbreviate(options) + " (expected: an object)");
      }
      includeUsage = bool(options, "include_usage");
    }
    return new CompletionRequest(
        kind, model, prompt, maxTokens, limit != null, stream, includeUsage);
  }

  /**
   * Checked before Jackson reads the body: its byte parser matches a field name against the
   * names it has already seen before decoding it, and pads short names with 0xFF bytes, so once
   * {@code model} has been seen, an invalid {@code "mode\xFF\xFF\xFFl"} reads as {@code model}
   * instead of failing (jackson-core 2.20). Valid UTF-8 never holds 0xFF.
   */
  private static boolean isUtf8(byte[] body) {
    int i = 0;
    while (i < body.length && body[i] >= 0) {
      i++;
    }
    if (i == body.length) {
      return true;
    }
    try {
      StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(body, i, body.length - i));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private String model(JsonNode root) {
    JsonNode model = field(root, "model");
    if (model == null) {
      return servedModel;
    }
    if (!model.isTextual()) {
      throw ApiError.invalid("model", "model: " + abbreviate(model) + " (expected: a string)");
    }
    if (!model.asText().equals(servedModel)) {
      throw new ApiError(ApiError.Code.MODEL_NOT_FOUND,
          "The model `" + abbreviate(model.asText()) + "` does not exist (served: " + servedModel
              + ")",
          "model");
    }
    return servedModel;
  }

  private static String messages(JsonNode root) {
    JsonNode messages = field(root, "messages");
    if (messages == null) {
      throw ApiError.invalid("messages", "messages: missing (expected: a non-empty list)");
    }
    if (!messages.isArray() || messages.isEmpty()) {
      throw ApiError.invalid("messages", "messages: " + abbreviate(messages)
          + " (expected: a non-empty list)");
    }
    StringBuilder prompt = new StringBuilder();
    for (int i = 0; i < messages.size(); i++) {
      JsonNode message = messages.get(i);
      String at = "messages[" + i + "]";
      if (!message.isObject()) {
        throw ApiError.invalid(at, at + ": " + abbreviate(message) + " (expected: an object)");
      }
      JsonNode role = field(message, "role");
      if (role == null || !role.isTextual() || !ROLES.contains(role.asText())) {
        throw ApiError.invalid(at + ".role", at + ".role: "
            + (role == null ? "null" : abbreviate(role)) + " (expected: one of "
            + String.join(", ", new java.util.TreeSet<>(ROLES)) + ")");
      }
      if (i > 0) {
        prompt.append('\n');
      }
      prompt.append(content(field(message, "content"), at + ".content"));
    }
    return prompt.toString();
  }

  private static String content(JsonNode content, String at) {
    return Prompts.content(content).orElseThrow(() -> ApiError.invalid(at, at + ": "
        + abbreviate(content) + " (expected: a string or a list of {\"type\": \"text\", "
        + "\"text\": \"...\"} parts)"));
  }

  private static String prompt(JsonNode root) {
    JsonNode prompt = field(root, "prompt");
    if (prompt == null) {
      throw ApiError.invalid("prompt", "prompt: missing (expected: a string)");
    }
    if (prompt.isTextual()) {
      return prompt.asText();
    }
    if (prompt.isArray() && prompt.size() == 1 && prompt.get(0).isTextual()) {
      return prompt.get(0).asText();
    }
    throw ApiError.invalid("prompt", "prompt: " + abbreviate(prompt)
        + " (expected: a string or a list of one string)");
  }

  private static boolean bool(JsonNode node, String name) {
    JsonNode value = field(node, name);
    if (value == null) {
      return false;
    }
    if (!value.isBoolean()) {
      throw ApiError.invalid(name, name + ": " + abbreviate(value) + " (expected: true or false)");
    }
    return value.booleanValue();
  }

  private static JsonNode field(JsonNode node, String name) {
    JsonNode value = node.get(name);
    return value == null || value.isNull() ? null : value;
  }

  /** A client's value as an error message quotes it: at most 60 characters. */
  private static String abbreviate(JsonNode node) {
    return abbreviate(node.toString());
  }

  private static String abbreviate(String text) {
    return text.length() <= 60 ? text : text.substring(0, 57) + "...";
  }
}
