package dev.sluice.core.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class JsonSyntaxErrorsTest {

  private static final ObjectMapper JSON = new ObjectMapper(JsonSyntaxErrors.factory());

  private static String describe(String text) {
    JsonProcessingException e = catchThrowableOfType(JsonProcessingException.class,
        () -> JSON.readTree(text));
    assertThat(e).as("refused: %s", text).isNotNull();
    return JsonSyntaxErrors.describe(e);
  }

  @Test
  void anUnclosedArrayOrObjectSaysWhereWithoutTheParsersSettings() {
    assertThat(describe("{\"a\":[1")).isEqualTo(
        "Unexpected end-of-input: expected close marker for Array (line 1, column 8)");
    assertThat(describe("{\"a\":[}")).isEqualTo(
        "Unexpected close marker '}': expected ']' (line 1, column 7)");
    assertThat(describe("{\"a\":1")).isEqualTo(
        "Unexpected end-of-input: expected close marker for Object (line 1, column 7)");
  }

  @Test
  void anotherErrorKeepsJacksonsSentenceAndGainsItsPlace() {
    assertThat(describe("hello")).startsWith("Unrecognized token 'hello': was expecting (JSON")
        .endsWith("'true' or 'false') (line 1, column 6)");
  }

  @Test
  void linesCountFromOne() {
    assertThat(describe("{\"a\":\n[1,\n2")).endsWith("(line 3, column 2)");
    assertThat(describe("{\n\n\"a\" 1}")).contains("(line 3, column ");
  }

  @Test
  void noMessageSaysNothingOfTheParser() {
    for (String text : new String[] {"{\"a\":[1", "{\"a\":[}", "[{", "{\"a\":{\"b\":[}}"}) {
      assertThat(describe(text)).doesNotContain("Source", "REDACTED", "StreamReadFeature");
    }
  }

  @Test
  void aLongUnrecognizedTokenIsEchoedShort() {
    String described = describe("x".repeat(5_000));

    assertThat(described).startsWith("Unrecognized token '" + "x".repeat(
        JsonSyntaxErrors.MAX_TOKEN_ECHOED) + "...'").hasSizeLessThan(200);
  }
}
