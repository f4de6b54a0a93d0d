package dev.sluice.core.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.http.ApiError;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * Any bytes as the body of a chat or legacy completion request: only an {@link ApiError} may come
 * out (never a NullPointerException, ClassCastException, NumberFormatException ...), a 4xx with a
 * short message; an accepted request asks for 1 to max_model_len tokens of the served model
 * (prompt included), and agrees with the body it came from.
 *
 * <p>Seeds: {@code CompletionRequestParserFuzzTestInputs/} beside this class in
 * {@code src/test/resources}.
 */
class CompletionRequestParserFuzzTest {

  private static final String MODEL = "sluice-sim";
  private static final int DEFAULT_MAX_TOKENS = 128;
  private static final int MAX_MODEL_LEN = 4096;
  private static final CompletionRequestParser PARSER =
      new CompletionRequestParser(MODEL, DEFAULT_MAX_TOKENS, MAX_MODEL_LEN);
  /** The body read again, by a reader that decodes every field name (no cache of known names). */
  private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
      .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES).build());

  static {
    // The parser's Jackson has seen every field name by now, as in a serving replica: a reader
    // that matches names it knows before decoding them behaves differently than when fresh.
    PARSER.parse(CompletionRequest.Kind.CHAT, ("{\"model\":\"" + MODEL + "\",\"messages\":[{"
        + "\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}],"
        + "\"prompt\":\"hi\",\"max_tokens\":1,\"max_completion_tokens\":1,\"n\":1,"
        + "\"stop\":[\"a\"],\"seed\":1,\"temperature\":1,\"top_p\":1,\"user\":\"u\","
        + "\"stream\":true,\"stream_options\":{\"include_usage\":true}}")
        .getBytes(StandardCharsets.UTF_8));
  }

  @FuzzTest(maxDuration = "20s")
  void acceptsOnlyValidRequestsAndRefusesTheRestWithAnApiError(byte[] body) throws IOException {
    for (CompletionRequest.Kind kind : CompletionRequest.Kind.values()) {
      CompletionRequest request;
      try {
        request = PARSER.parse(kind, body);
      } catch (ApiError e) {
        assertThat(e.status()).isBetween(400, 499);
        assertThat(e.getMessage()).isNotBlank().hasSizeLessThanOrEqualTo(400);
        continue;
      }
      assertThat(request.kind()).isEqualTo(kind);
      assertThat(request.model()).isEqualTo(MODEL);
      assertThat(request.maxTokens()).isBetween(1, MAX_MODEL_LEN);
      assertThat(isUtf8(body)).as("an accepted body is UTF-8 (RFC 8259)").isTrue();
      assertAgreesWithTheBody(request, JSON.readTree(body));
    }
  }

  /** The accepted request against the body, read independently. */
  private static void assertAgreesWithTheBody(CompletionRequest request, JsonNode root) {
    assertThat(root.isObject()).isTrue();
    JsonNode limit = present(root, "max_completion_tokens");
    if (limit == null) {
      limit = present(root, "max_tokens");
    }
    assertThat(request.explicitLimit()).isEqualTo(limit != null);
    // Without a limit, the default shrinks to the room the prompt leaves in the context.
    int roomLeft = MAX_MODEL_LEN - request.promptTokens();
    assertThat(BigInteger.valueOf(request.maxTokens())).isEqualTo(limit == null
        ? BigInteger.valueOf(Math.min(DEFAULT_MAX_TOKENS, roomLeft)) : exactInteger(limit));
    assertThat(request.promptTokens() + request.maxTokens()).isLessThanOrEqualTo(MAX_MODEL_LEN);
    JsonNode n = present(root, "n");
    assertThat(BigInteger.valueOf(request.n()))
        .isEqualTo(n == null ? BigInteger.ONE : exactInteger(n));
    assertThat(request.n()).isBetween(1, CompletionRequestParser.MAX_N);
    assertThat(request.stop()).hasSizeLessThanOrEqualTo(CompletionRequestParser.MAX_STOP)
        .allSatisfy(stop -> assertThat(stop).isNotEmpty());
    JsonNode model = present(root, "model");
    if (model != null) {
      assertThat(model.textValue()).isEqualTo(MODEL);
    }
    JsonNode stream = present(root, "stream");
    assertThat(request.stream()).isEqualTo(stream != null && stream.booleanValue());
    if (request.kind() == CompletionRequest.Kind.CHAT) {
      assertThat(present(root, "messages")).isNotNull().isNotEmpty();
    } else {
      assertThat(present(root, "prompt")).isNotNull();
    }
    assertThat(request.promptTokens()).isPositive();
  }

  private static boolean isUtf8(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private static JsonNode present(JsonNode node, String name) {
    JsonNode value = node.get(name);
    return value == null || value.isNull() ? null : value;
  }

  /** The value of an integral number, exactly; anything else is not an integer. */
  private static BigInteger exactInteger(JsonNode number) {
    assertThat(number.isIntegralNumber()).as("%s is an integer", number).isTrue();
    return number.bigIntegerValue();
  }
}
