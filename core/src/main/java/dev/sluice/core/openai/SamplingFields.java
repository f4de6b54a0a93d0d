package dev.sluice.core.openai;

import static dev.sluice.core.openai.JsonFields.field;
import static dev.sluice.core.openai.JsonFields.invalid;
import static dev.sluice.core.openai.JsonFields.isInt;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The sampling fields of a request, checked as OpenAI checks them: {@code n}, {@code stop},
 * {@code seed} and the ranges of {@code temperature}, {@code top_p} and the penalties.
 */
final class SamplingFields {

  private SamplingFields() {}

  static int n(JsonNode root) {
    JsonNode n = field(root, "n");
    if (n == null) {
      return 1;
    }
    if (!isInt(n) || n.intValue() < 1 || n.intValue() > CompletionRequestParser.MAX_N) {
      throw invalid("n", n, "an integer from 1 to " + CompletionRequestParser.MAX_N);
    }
    return n.intValue();
  }

  static List<String> stop(JsonNode root) {
    JsonNode stop = field(root, "stop");
    String expected = "a string or a list of up to " + CompletionRequestParser.MAX_STOP
        + " strings of 1 to " + CompletionRequestParser.MAX_STOP_CHARS + " characters";
    if (stop == null) {
      return List.of();
    }
    if (stop.isTextual()) {
      return List.of(stopString(stop, "stop", expected));
    }
    if (!stop.isArray() || stop.size() > CompletionRequestParser.MAX_STOP) {
      throw invalid("stop", stop, expected);
    }
    List<String> stops = new ArrayList<>(stop.size());
    for (int i = 0; i < stop.size(); i++) {
      stops.add(stopString(stop.get(i), "stop[" + i + "]", expected));
    }
    return List.copyOf(stops);
  }

  private static String stopString(JsonNode value, String at, String expected) {
    if (!value.isTextual() || value.asText().isEmpty()
        || value.asText().length() > CompletionRequestParser.MAX_STOP_CHARS) {
      throw invalid("stop", at, value, expected);
    }
    return value.asText();
  }

  static Optional<Long> seed(JsonNode root) {
    JsonNode seed = field(root, "seed");
    if (seed == null) {
      return Optional.empty();
    }
    if (!seed.isIntegralNumber() || !seed.canConvertToLong()) {
      throw invalid("seed", seed, "an integer");
    }
    return Optional.of(seed.longValue());
  }

  /** The ranges OpenAI documents; the simulated engine's text does not depend on them. */
  static void checkRanges(JsonNode root) {
    range(root, "temperature", 0, 2);
    range(root, "top_p", 0, 1);
    range(root, "presence_penalty", -2, 2);
    range(root, "frequency_penalty", -2, 2);
  }

  private static void range(JsonNode root, String name, int min, int max) {
    JsonNode value = field(root, name);
    if (value != null && !(value.isNumber() && value.doubleValue() >= min
        && value.doubleValue() <= max)) {
      throw invalid(name, value, "a number from " + min + " to " + max);
    }
  }
}
