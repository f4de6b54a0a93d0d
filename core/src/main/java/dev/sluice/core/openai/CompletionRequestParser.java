package dev.sluice.core.openai;

import static dev.sluice.core.openai.JsonFields.abbreviate;
import static dev.sluice.core.openai.JsonFields.bool;
import static dev.sluice.core.openai.JsonFields.field;
import static dev.sluice.core.openai.JsonFields.invalid;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.JsonSyntaxErrors;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Parses and validates an OpenAI request body. Every error is an {@link ApiError} naming the
 * field: {@code max_tokens: -1 (expected: >= 1)}.
 */
public final class CompletionRequestParser {

  /** The most choices ({@code n}) one request may ask for. */
  public static final int MAX_N = 8;
  /** The most stop strings one request may give (OpenAI's limit). */
  public static final int MAX_STOP = 4;
  /** The longest stop string, in characters: it bounds the work of matching each token. */
  public static final int MAX_STOP_CHARS = 256;

  /** What the engine behind the parser can do beyond generating plain text. */
  public enum Capabilities {
    /**
     * Plain text only, as the simulated engine: {@code tools}, {@code tool_choice} other than
     * {@code "none"}, JSON {@code response_format}s, {@code logprobs}, {@code top_logprobs},
     * {@code echo}, {@code best_of} over 1 and {@code suffix} get 400 naming the field.
     */
    TEXT_ONLY,
    /** An engine that honours those fields itself: they are accepted unread. */
    ALL
  }

  private static final ObjectMapper JSON = new ObjectMapper(JsonSyntaxErrors.factory());
  private static final Set<String> ROLES =
      Set.of("system", "developer", "user", "assistant", "tool", "function");

  private final String servedModel;
  private final int defaultMaxTokens;
  private final int maxModelLen;
  private final Capabilities capabilities;

  /** A parser for the simulated engine: {@link Capabilities#TEXT_ONLY}. */
  public CompletionRequestParser(String servedModel, int defaultMaxTokens, int maxModelLen) {
    this(servedModel, defaultMaxTokens, maxModelLen, Capabilities.TEXT_ONLY);
  }

  public CompletionRequestParser(String servedModel, int defaultMaxTokens, int maxModelLen,
      Capabilities capabilities) {
    this.servedModel = Objects.requireNonNull(servedModel, "servedModel");
    this.defaultMaxTokens = defaultMaxTokens;
    this.maxModelLen = maxModelLen;
    this.capabilities = Objects.requireNonNull(capabilities, "capabilities");
  }

  public CompletionRequest parse(CompletionRequest.Kind kind, byte[] body) {
    JsonNode root = read(body);
    String model = model(root);
    String prompt = kind == CompletionRequest.Kind.CHAT ? messages(root) : prompt(root);
    OptionalInt limit = limit(root);
    int n = SamplingFields.n(root);
    List<String> stop = SamplingFields.stop(root);
    Optional<Long> seed = SamplingFields.seed(root);
    SamplingFields.checkRanges(root);
    if (capabilities == Capabilities.TEXT_ONLY) {
      UnsupportedFields.reject(kind, root);
    }
    JsonNode user = field(root, "user");
    if (user != null && !user.isTextual()) {
      throw invalid("user", user, "a string");
    }
    boolean stream = bool(root, "stream");
    boolean includeUsage = false;
    JsonNode options = field(root, "stream_options");
    if (options != null) {
      if (!options.isObject()) {
        throw invalid("stream_options", options, "an object");
      }
      includeUsage = bool(options, "include_usage");
    }
    int maxTokens = withinContext(kind, CompletionRequest.promptTokens(prompt), limit);
    return new CompletionRequest(kind, model, prompt, maxTokens, limit.isPresent(), stream,
        includeUsage, n, stop, seed);
  }

  private static JsonNode read(byte[] body) {
    if (!isUtf8(body)) {
      throw new ApiError(ApiError.Code.INVALID_JSON,
          "Invalid JSON body: not UTF-8 (expected: UTF-8, RFC 8259 section 8.1)", null);
    }
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw new ApiError(ApiError.Code.INVALID_JSON,
          "Invalid JSON body: " + JsonSyntaxErrors.describe(e), null);
    } catch (java.io.IOException e) {
      throw new ApiError(ApiError.Code.INVALID_JSON, "Unreadable body: " + e.getMessage(), null);
    }
    if (root == null || !root.isObject()) {
      throw new ApiError(ApiError.Code.INVALID_JSON,
          "Request body must be a JSON object", null);
    }
    return root;
  }

  /**
   * {@code max_completion_tokens} is the newer name of {@code max_tokens}: either may be given,
   * or both with the same value; both with different values are refused naming {@code
   * max_tokens} rather than one silently winning.
   */
  private OptionalInt limit(JsonNode root) {
    OptionalInt current = limit(root, "max_completion_tokens");
    OptionalInt legacy = limit(root, "max_tokens");
    if (current.isPresent() && legacy.isPresent()
        && current.getAsInt() != legacy.getAsInt()) {
      throw ApiError.invalid("max_tokens", "max_tokens: " + legacy.getAsInt()
          + " (expected: the same as max_completion_tokens: " + current.getAsInt()
          + ", or only one of the two)");
    }
    return current.isPresent() ? current : legacy;
  }

  private OptionalInt limit(JsonNode root, String name) {
    JsonNode limit = field(root, name);
    if (limit == null) {
      return OptionalInt.empty();
    }
    if (!JsonFields.isInt(limit)) {
      throw invalid(name, limit, "an integer >= 1");
    }
    int tokens = limit.intValue();
    if (tokens < 1) {
      throw ApiError.invalid(name, name + ": " + tokens + " (expected: >= 1)");
    }
    if (tokens > maxModelLen) {
      throw ApiError.invalid(name, name + ": " + tokens + " (expected: <= " + maxModelLen + ")");
    }
    return OptionalInt.of(tokens);
  }

  /**
   * The tokens to generate, the prompt's and those together within {@code max_model_len}, as
   * vLLM checks them and in its words. Without a limit from the client the default is cut to
   * what the context has room for, as vLLM's default is.
   */
  private int withinContext(CompletionRequest.Kind kind, int promptTokens, OptionalInt limit) {
    String param = kind == CompletionRequest.Kind.CHAT ? "messages" : "prompt";
    if (limit.isEmpty()) {
      if (promptTokens >= maxModelLen) {
        throw ApiError.invalid(param, "This model's maximum context length is " + maxModelLen
            + " tokens. However, you requested " + promptTokens + " tokens in the " + param
            + ". Please reduce the length of the " + param + ".");
      }
      return Math.min(defaultMaxTokens, maxModelLen - promptTokens);
    }
    int tokens = limit.getAsInt();
    if ((long) promptTokens + tokens > maxModelLen) {
      throw ApiError.invalid(param, "This model's maximum context length is " + maxModelLen
          + " tokens. However, you requested " + (promptTokens + tokens) + " tokens ("
          + promptTokens + " in the " + param + ", " + tokens + " in the completion). Please "
          + "reduce the length of the " + param + " or completion.");
    }
    return tokens;
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
}
