package dev.sluice.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A config tree node that knows its path, so every validation error can name its field. */
final class Node {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final JsonNode json;
  private final String path;

  Node(JsonNode json, String path) {
    this.json = json;
    this.path = path;
  }

  ConfigException error(String field, String problem) {
    return new ConfigException(child(field) + ": " + problem);
  }

  private String child(String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  void allowOnly(String... fields) {
    if (!json.isObject()) {
      throw new ConfigException(
          (path.isEmpty() ? "application config" : path) + ": expected an object");
    }
    Set<String> allowed = Set.of(fields);
    for (Iterator<String> it = json.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!allowed.contains(name)) {
        throw error(name, "unknown field (expected one of: "
            + String.join(", ", new java.util.TreeSet<>(allowed)) + ")");
      }
    }
  }

  /** Whether the field is present (and not null). */
  boolean has(String name) {
    return field(name) != null;
  }

  private JsonNode field(String name) {
    JsonNode value = json.get(name);
    return value == null || value.isNull() ? null : value;
  }

  String string(String name, String defaultValue) {
    JsonNode value = field(name);
    if (value == null) {
      if (defaultValue == null) {
        throw error(name, "missing (expected: a string)");
      }
      return defaultValue;
    }
    if (!value.isTextual() || value.asText().isBlank()) {
      throw error(name, value + " (expected: a non-empty string)");
    }
    return value.asText();
  }

  int integer(String name, int defaultValue, int min) {
    JsonNode value = field(name);
    if (value == null) {
      return defaultValue;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw error(name, value + " (expected: an integer from " + min + " to "
          + Integer.MAX_VALUE + ")");
    }
    if (value.intValue() < min) {
      throw error(name, value.intValue() + " (expected: >= " + min + ")");
    }
    return value.intValue();
  }

  double number(String name, double defaultValue, double min) {
    JsonNode value = field(name);
    if (value == null) {
      return defaultValue;
    }
    // A literal beyond double range (1e400) reads as Infinity: refused, not taken as "forever".
    if (!value.isNumber() || !Double.isFinite(value.doubleValue())) {
      throw error(name, value + " (expected: a finite number >= " + min + ")");
    }
    if (value.doubleValue() < min) {
      throw error(name, value + " (expected: >= " + min + ")");
    }
    return value.doubleValue();
  }

  /**
   * An integer in {@code min..max}, or the word {@code keyword} read as {@code keywordValue}
   * (e.g. {@code port: auto}).
   */
  int integerOrWord(String name, String keyword, int keywordValue, int defaultValue, int min,
      int max) {
    JsonNode value = field(name);
    if (value == null) {
      return defaultValue;
    }
    if (value.isTextual() && value.asText().equals(keyword)) {
      return keywordValue;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < min
        || value.intValue() > max) {
      throw error(name, value + " (expected: \"" + keyword + "\" or an integer " + min + ".."
          + max + ")");
    }
    return value.intValue();
  }

  /**
   * A list of scalars as strings ({@code [vllm, serve, --tensor-parallel-size, 2]}: the 2 is
   * read as "2"); {@code what} says what is expected, for the error messages.
   */
  List<String> strings(String name, boolean required, String what) {
    JsonNode value = field(name);
    if (value == null) {
      if (required) {
        throw error(name, "missing (expected: " + what + ")");
      }
      return List.of();
    }
    if (!value.isArray()) {
      throw error(name, value + " (expected: " + what + ")");
    }
    List<String> items = new ArrayList<>();
    for (int i = 0; i < value.size(); i++) {
      items.add(scalar(value.get(i), name + "[" + i + "]"));
    }
    return List.copyOf(items);
  }

  /** An object of scalars as strings ({@code {CUDA_VISIBLE_DEVICES: 0}}: "0"). */
  Map<String, String> stringMap(String name) {
    JsonNode value = field(name);
    if (value == null) {
      return Map.of();
    }
    if (!value.isObject()) {
      throw error(name, value + " (expected: an object of strings)");
    }
    Map<String, String> out = new LinkedHashMap<>();
    value.properties().forEach(
        e -> out.put(e.getKey(), scalar(e.getValue(), name + "." + e.getKey())));
    return out;
  }

  private String scalar(JsonNode value, String name) {
    if (!value.isValueNode() || value.isNull() || value.isBinary()) {
      throw new ConfigException(child(name) + ": " + value + " (expected: a string)");
    }
    return value.asText();
  }

  Node object(String name, boolean required) {
    JsonNode value = field(name);
    if (value == null) {
      if (required) {
        throw error(name, "missing (expected: an object)");
      }
      return new Node(MAPPER.createObjectNode(), child(name));
    }
    if (!value.isObject()) {
      throw error(name, value + " (expected: an object)");
    }
    return new Node(value, child(name));
  }

  List<Node> list(String name, boolean required) {
    JsonNode value = field(name);
    if (value == null) {
      if (required) {
        throw error(name, "missing (expected: a list)");
      }
      return List.of();
    }
    if (!value.isArray()) {
      throw error(name, value + " (expected: a list)");
    }
    List<Node> items = new ArrayList<>();
    for (int i = 0; i < value.size(); i++) {
      items.add(new Node(value.get(i), child(name) + "[" + i + "]"));
    }
    return items;
  }

  /** A free-form object as plain Java values (String, Long, Double, Boolean, List, Map). */
  Map<String, Object> map(String name) {
    JsonNode value = field(name);
    if (value == null) {
      return Map.of();
    }
    if (!value.isObject()) {
      throw error(name, value + " (expected: an object)");
    }
    Map<String, Object> out = new LinkedHashMap<>();
    value.fields().forEachRemaining(e -> out.put(e.getKey(), plain(e.getValue(), name)));
    return out;
  }

  private Object plain(JsonNode value, String name) {
    if (value.isTextual()) {
      return value.asText();
    }
    if (value.isBoolean()) {
      return value.booleanValue();
    }
    // longValue() wraps and doubleValue() overflows silently: out-of-range numbers are refused.
    if (value.isIntegralNumber()) {
      if (!value.canConvertToLong()) {
        throw error(name, value + " (expected: an integer within 64 bits)");
      }
      return value.longValue();
    }
    if (value.isNumber()) {
      if (!Double.isFinite(value.doubleValue())) {
        throw error(name, value + " (expected: a finite number)");
      }
      return value.doubleValue();
    }
    if (value.isArray()) {
      List<Object> items = new ArrayList<>();
      value.forEach(v -> items.add(plain(v, name)));
      return List.copyOf(items);
    }
    if (value.isObject()) {
      Map<String, Object> out = new LinkedHashMap<>();
      value.fields().forEachRemaining(e -> out.put(e.getKey(), plain(e.getValue(), name)));
      return Map.copyOf(out);
    }
    throw error(name, "null values are not allowed");
  }
}
