package dev.sluice.core.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.http.ApiError;

/** Reading one field of a request body, for the parser and its checks. */
final class JsonFields {

  private JsonFields() {}

  /** The field's value; null when absent or JSON {@code null} (OpenAI treats both alike). */
  static JsonNode field(JsonNode node, String name) {
    JsonNode value = node.get(name);
    return value == null || value.isNull() ? null : value;
  }

  static boolean bool(JsonNode node, String name) {
    JsonNode value = field(node, name);
    if (value == null) {
      return false;
    }
    if (!value.isBoolean()) {
      throw invalid(name, value, "true or false");
    }
    return value.booleanValue();
  }

  /** An integer that fits in an int (checked first: intValue() wraps 4294967297 to 1). */
  static boolean isInt(JsonNode value) {
    return value.isIntegralNumber() && value.canConvertToInt();
  }

  /** {@code name: <value> (expected: <expected>)}, naming the field as {@code param}. */
  static ApiError invalid(String name, JsonNode value, String expected) {
    return invalid(name, name, value, expected);
  }

  /** As {@link #invalid(String, JsonNode, String)} for a part of a field: {@code stop[2]}. */
  static ApiError invalid(String param, String at, JsonNode value, String expected) {
    return ApiError.invalid(param, at + ": " + abbreviate(value) + " (expected: " + expected + ")");
  }

  /** A client's value as an error message quotes it: at most 60 characters. */
  static String abbreviate(JsonNode node) {
    return abbreviate(node.toString());
  }

  static String abbreviate(String text) {
    return text.length() <= 60 ? text : text.substring(0, 57) + "...";
  }
}
