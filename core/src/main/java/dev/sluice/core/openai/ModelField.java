package dev.sluice.core.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Optional;

/**
 * The {@code model} of an OpenAI request body, read without parsing the rest: a streaming scan
 * of the top-level object that skips every other value without building it. The ingress routes
 * by it when the body is not forwarded to the router. Lenient: a body that is not a JSON object,
 * or whose {@code model} is not a string, has no model here (the replica then answers the
 * precise 400). A body naming {@code model} twice has none either: the scan reads to the end so
 * that it never routes by one value while the replica reads the other.
 */
public final class ModelField {

  /**
   * The longest model id a deployment may serve. A longer {@code model} in a request is kept at
   * one character more, so that it still matches nothing (404 {@code model_not_found}) without
   * carrying a client's megabyte to the router.
   */
  public static final int MAX_CHARS = 256;

  private static final JsonFactory JSON = new JsonFactory();

  private ModelField() {}

  /** A model name as routing carries it: at most one character over {@link #MAX_CHARS}. */
  public static String capped(String model) {
    return model.length() > MAX_CHARS ? model.substring(0, MAX_CHARS + 1) : model;
  }

  public static Optional<String> find(byte[] body) {
    if (body.length == 0) {
      return Optional.empty();
    }
    try (JsonParser parser = JSON.createParser(body)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return Optional.empty();
      }
      Optional<String> model = Optional.empty();
      boolean seen = false;
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if ("model".equals(name)) {
          if (seen || value != JsonToken.VALUE_STRING) {
            return Optional.empty();
          }
          seen = true;
          model = Optional.of(capped(parser.getText()));
        }
        parser.skipChildren();
      }
      return parser.currentToken() == JsonToken.END_OBJECT ? model : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
