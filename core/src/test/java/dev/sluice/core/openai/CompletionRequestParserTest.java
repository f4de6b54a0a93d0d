package dev.sluice.core.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.openai.CompletionRequest.Kind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CompletionRequestParserTest {

  private static final int MAX_MODEL_LEN = 100;
  private static final int DEFAULT_MAX_TOKENS = 16;
  private static final CompletionRequestParser PARSER =
      new CompletionRequestParser("sim", DEFAULT_MAX_TOKENS, MAX_MODEL_LEN);
  private static final CompletionRequestParser PASS_THROUGH = new CompletionRequestParser(
      "sim", DEFAULT_MAX_TOKENS, MAX_MODEL_LEN, CompletionRequestParser.Capabilities.ALL);

  /** A chat body with one user message {@code hi} and {@code fields} added. */
  private static String chat(String fields) {
    return "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]"
        + (fields.isEmpty() ? "" : "," + fields) + "}";
  }

  private static String completion(String fields) {
    return "{\"prompt\":\"hi\"" + (fields.isEmpty() ? "" : "," + fields) + "}";
  }

  private static CompletionRequest parse(Kind kind, String body) {
    return PARSER.parse(kind, body.getBytes(StandardCharsets.UTF_8));
  }

  private static ApiError refusal(CompletionRequestParser parser, Kind kind, String body) {
    ApiError error = catchThrowableOfType(ApiError.class,
        () -> parser.parse(kind, body.getBytes(StandardCharsets.UTF_8)));
    assertThat(error).as("refused: %s", body).isNotNull();
    assertThat(error.status()).isEqualTo(400);
    return error;
  }

  private static ApiError refusal(Kind kind, String body) {
    return refusal(PARSER, kind, body);
  }

  @Test
  void aBodyThatIsNotJsonSaysWhereItStopped() {
    ApiError error = refusal(Kind.CHAT, "{\"messages\": [}");

    assertThat(error.code()).isEqualTo(ApiError.Code.INVALID_JSON);
    assertThat(error.getMessage()).isEqualTo(
        "Invalid JSON body: Unexpected close marker '}': expected ']' (line 1, column 15)");
  }

  @Test
  void aPlainRequestHasOneChoiceNoStopNoSeed() {
    CompletionRequest request = parse(Kind.CHAT, chat(""));

    assertThat(request.n()).isEqualTo(1);
    assertThat(request.stop()).isEmpty();
    assertThat(request.seed()).isEmpty();
    assertThat(request.maxTokens()).isEqualTo(DEFAULT_MAX_TOKENS);
    assertThat(request.explicitLimit()).isFalse();
  }

  @Test
  void stopIsAStringOrAListOfUpToFour() {
    assertThat(parse(Kind.CHAT, chat("\"stop\":\"\\n\"")).stop()).containsExactly("\n");
    assertThat(parse(Kind.COMPLETION, completion("\"stop\":[\"a\",\"bc\",\"d\",\"e\"]")).stop())
        .containsExactly("a", "bc", "d", "e");
    assertThat(parse(Kind.CHAT, chat("\"stop\":[]")).stop()).isEmpty();
    assertThat(parse(Kind.CHAT, chat("\"stop\":null")).stop()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "\"stop\":5                        | stop: 5 (expected: a string or a list of up to 4",
      "\"stop\":{\"a\":1}                | stop: {\"a\":1} (expected:",
      "\"stop\":[\"a\",\"b\",\"c\",\"d\",\"e\"] | stop: [\"a\",\"b\",\"c\",\"d\",\"e\"] (expected:",
      "\"stop\":[\"a\",7]                | stop[1]: 7 (expected:",
      "\"stop\":\"\"                     | stop: \"\" (expected:",
      "\"stop\":[\"a\",null]             | stop[1]: null (expected:"})
  void badStopIsRefusedNamingStop(String field, String message) {
    ApiError error = refusal(Kind.CHAT, chat(field));

    assertThat(error.param()).hasValue("stop");
    assertThat(error.getMessage()).startsWith(message);
  }

  @Test
  void aStopStringOverTheLengthLimitIsRefused() {
    String longStop = "x".repeat(CompletionRequestParser.MAX_STOP_CHARS + 1);

    assertThat(refusal(Kind.CHAT, chat("\"stop\":\"" + longStop + "\"")).param())
        .hasValue("stop");
    assertThat(parse(Kind.CHAT, chat("\"stop\":\"" + longStop.substring(1) + "\"")).stop())
        .hasSize(1);
  }

  @Test
  void nFromOneToTheLimitIsTaken() {
    assertThat(parse(Kind.CHAT, chat("\"n\":1")).n()).isEqualTo(1);
    assertThat(parse(Kind.COMPLETION, completion("\"n\":3")).n()).isEqualTo(3);
    assertThat(parse(Kind.CHAT, chat("\"n\":" + CompletionRequestParser.MAX_N)).n())
        .isEqualTo(CompletionRequestParser.MAX_N);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "0", "-1", "9", "1.5", "\"2\"", "true", "4294967297", "[2]"})
  void nOutsideOneToTheLimitOrNotAnIntegerIsRefused(String n) {
    ApiError error = refusal(Kind.CHAT, chat("\"n\":" + n));

    assertThat(error.param()).hasValue("n");
    assertThat(error.getMessage()).isEqualTo("n: " + n + " (expected: an integer from 1 to 8)");
  }

  @Test
  void seedIsAnIntegerOfUpTo64Bits() {
    assertThat(parse(Kind.CHAT, chat("\"seed\":42")).seed()).hasValue(42L);
    assertThat(parse(Kind.CHAT, chat("\"seed\":-9223372036854775808")).seed())
        .hasValue(Long.MIN_VALUE);
    assertThat(parse(Kind.CHAT, chat("\"seed\":null")).seed()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"1.5", "\"7\"", "9223372036854775808", "false"})
  void aSeedThatIsNotAnIntegerIsRefused(String seed) {
    ApiError error = refusal(Kind.COMPLETION, completion("\"seed\":" + seed));

    assertThat(error.param()).hasValue("seed");
    assertThat(error.getMessage()).isEqualTo("seed: " + seed + " (expected: an integer)");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "temperature       | 0   | 2",
      "top_p             | 0   | 1",
      "presence_penalty  | -2  | 2",
      "frequency_penalty | -2  | 2"})
  void samplingFieldsAreTakenWithinTheirRange(String field, int min, int max) {
    parse(Kind.CHAT, chat("\"" + field + "\":" + min));
    parse(Kind.CHAT, chat("\"" + field + "\":" + max));
    parse(Kind.COMPLETION, completion("\"" + field + "\":" + (min + max) / 2.0));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "temperature       | 3       | a number from 0 to 2",
      "temperature       | -0.1    | a number from 0 to 2",
      "temperature       | \"hot\" | a number from 0 to 2",
      "temperature       | 1e400   | a number from 0 to 2",
      "top_p             | 1.01    | a number from 0 to 1",
      "top_p             | true    | a number from 0 to 1",
      "presence_penalty  | -2.5    | a number from -2 to 2",
      "frequency_penalty | 2.5     | a number from -2 to 2",
      "frequency_penalty | [1]     | a number from -2 to 2"})
  void samplingFieldsOutOfRangeOrNotNumbersAreRefused(String field, String value,
      String expected) {
    ApiError error = refusal(Kind.CHAT, chat("\"" + field + "\":" + value));

    assertThat(error.param()).hasValue(field);
    assertThat(error.getMessage()).startsWith(field + ": ")
        .endsWith("(expected: " + expected + ")");
  }

  @Test
  void temperatureOutOfRangeNamesTheValue() {
    assertThat(refusal(Kind.CHAT, chat("\"temperature\":3")).getMessage())
        .isEqualTo("temperature: 3 (expected: a number from 0 to 2)");
  }

  @Test
  void maxCompletionTokensIsTheNewerNameOfMaxTokens() {
    CompletionRequest newer = parse(Kind.CHAT, chat("\"max_completion_tokens\":7"));
    CompletionRequest both = parse(Kind.CHAT, chat("\"max_tokens\":7,\"max_completion_tokens\":7"));

    assertThat(newer.maxTokens()).isEqualTo(7);
    assertThat(newer.explicitLimit()).isTrue();
    assertThat(both.maxTokens()).isEqualTo(7);
  }

  @Test
  void maxTokensAndMaxCompletionTokensThatDifferAreRefusedNamingMaxTokens() {
    ApiError error = refusal(Kind.CHAT, chat("\"max_tokens\":5,\"max_completion_tokens\":7"));

    assertThat(error.param()).hasValue("max_tokens");
    assertThat(error.getMessage()).isEqualTo("max_tokens: 5 (expected: the same as "
        + "max_completion_tokens: 7, or only one of the two)");
  }

  @Test
  void aBadMaxCompletionTokensIsRefusedUnderItsOwnName() {
    ApiError error = refusal(Kind.CHAT, chat("\"max_completion_tokens\":0"));

    assertThat(error.param()).hasValue("max_completion_tokens");
    assertThat(error.getMessage()).isEqualTo("max_completion_tokens: 0 (expected: >= 1)");
  }

  @Test
  void promptAndCompletionOverTheContextAreRefusedAsVllmDoes() {
    // 40 characters of prompt are 10 simulated tokens.
    String prompt = "x".repeat(40);
    String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt
        + "\"}],\"max_tokens\":91}";

    ApiError error = refusal(Kind.CHAT, body);

    assertThat(error.param()).hasValue("messages");
    assertThat(error.code()).isEqualTo(ApiError.Code.INVALID_REQUEST);
    assertThat(error.getMessage()).isEqualTo("This model's maximum context length is 100 tokens."
        + " However, you requested 101 tokens (10 in the messages, 91 in the completion)."
        + " Please reduce the length of the messages or completion.");
    assertThat(error.toJson()).contains("\"type\":\"invalid_request_error\"");
    assertThat(parse(Kind.CHAT, body.replace("91", "90")).maxTokens()).isEqualTo(90);
  }

  @Test
  void aCompletionPromptOverTheContextNamesThePrompt() {
    ApiError error = refusal(Kind.COMPLETION,
        "{\"prompt\":\"" + "y".repeat(400) + "\",\"max_tokens\":1}");

    assertThat(error.param()).hasValue("prompt");
    assertThat(error.getMessage()).contains("101 tokens (100 in the prompt, 1 in the completion)");
  }

  @Test
  void withoutALimitTheDefaultIsCutToTheRoomLeftAndAFullContextIsRefused() {
    CompletionRequest nearlyFull = parse(Kind.COMPLETION,
        "{\"prompt\":\"" + "y".repeat(4 * 90) + "\"}");
    ApiError full = refusal(Kind.COMPLETION, "{\"prompt\":\"" + "y".repeat(4 * 100) + "\"}");

    assertThat(nearlyFull.maxTokens()).isEqualTo(10);
    assertThat(nearlyFull.explicitLimit()).isFalse();
    assertThat(full.param()).hasValue("prompt");
    assertThat(full.getMessage()).isEqualTo("This model's maximum context length is 100 tokens."
        + " However, you requested 100 tokens in the prompt. Please reduce the length of the"
        + " prompt.");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "CHAT       | tools             | [{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]",
      "CHAT       | tools             | \"f\"",
      "CHAT       | tool_choice       | \"auto\"",
      "CHAT       | tool_choice       | {\"type\":\"function\"}",
      "CHAT       | response_format   | {\"type\":\"json_object\"}",
      "CHAT       | response_format   | {\"type\":\"json_schema\",\"json_schema\":{}}",
      "COMPLETION | response_format   | \"json\"",
      "CHAT       | logprobs          | true",
      "CHAT       | logprobs          | 1",
      "CHAT       | top_logprobs      | 2",
      "COMPLETION | logprobs          | 2",
      "COMPLETION | logprobs          | 0",
      "COMPLETION | echo              | true",
      "COMPLETION | echo              | \"yes\"",
      "COMPLETION | best_of           | 2",
      "COMPLETION | best_of           | 0",
      "COMPLETION | suffix            | \"end\""})
  void whatTheSimulatedEngineCannotDoIsRefusedNamingTheField(Kind kind, String field,
      String value) {
    String fields = "\"" + field + "\":" + value;
    String body = kind == Kind.CHAT ? chat(fields) : completion(fields);

    ApiError error = refusal(kind, body);

    assertThat(error.param()).hasValue(field);
    assertThat(error.getMessage()).startsWith(field + ": " + value + " (expected: ");
    assertThat(PASS_THROUGH.parse(kind, body.getBytes(StandardCharsets.UTF_8)).prompt())
        .as("an engine that honours %s gets it", field).isEqualTo("hi");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "CHAT       | tools           | []",
      "CHAT       | tool_choice     | \"none\"",
      "CHAT       | response_format | {\"type\":\"text\"}",
      "CHAT       | logprobs        | false",
      "CHAT       | top_logprobs    | null",
      "COMPLETION | logprobs        | null",
      "COMPLETION | echo            | false",
      "COMPLETION | best_of         | 1",
      "COMPLETION | suffix          | null",
      "CHAT       | user            | \"alice\""})
  void defaultsOfThoseFieldsAreAccepted(Kind kind, String field, String value) {
    String fields = "\"" + field + "\":" + value;

    assertThat(parse(kind, kind == Kind.CHAT ? chat(fields) : completion(fields)).prompt())
        .isEqualTo("hi");
  }

  @Test
  void aUserThatIsNotAStringIsRefused() {
    ApiError error = refusal(Kind.CHAT, chat("\"user\":5"));

    assertThat(error.param()).hasValue("user");
    assertThat(error.getMessage()).isEqualTo("user: 5 (expected: a string)");
  }

  @Test
  void theSamplingChecksApplyWhateverTheEngine() {
    assertThat(refusal(PASS_THROUGH, Kind.CHAT, chat("\"top_p\":2")).param()).hasValue("top_p");
    assertThat(refusal(PASS_THROUGH, Kind.CHAT, chat("\"n\":9")).param()).hasValue("n");
  }

  @Test
  void everyFieldTogetherMakesOneRequest() {
    CompletionRequest request = parse(Kind.CHAT, chat("\"n\":2,\"stop\":[\"river\"],\"seed\":7,"
        + "\"max_completion_tokens\":12,\"temperature\":0.7,\"top_p\":0.9,\"stream\":true,"
        + "\"stream_options\":{\"include_usage\":true},\"user\":\"u\""));

    assertThat(request).isEqualTo(new CompletionRequest(Kind.CHAT, "sim", "hi", 12, true, true,
        true, 2, List.of("river"), Optional.of(7L)));
  }

  @Test
  void theOldConstructorMeansOneChoiceWithoutStopOrSeed() {
    assertThat(new CompletionRequest(Kind.COMPLETION, "sim", "p", 3, false, false, false))
        .isEqualTo(new CompletionRequest(Kind.COMPLETION, "sim", "p", 3, false, false, false,
            1, List.of(), Optional.empty()));
  }
}
