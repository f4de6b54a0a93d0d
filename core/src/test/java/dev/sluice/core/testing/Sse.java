package dev.sluice.core.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;

/** Test helper: splits an SSE body into its {@code data:} payloads and parses them. */
public final class Sse {

  private static final ObjectMapper JSON = new ObjectMapper();

  private Sse() {}

  /** The payload of every frame, in order; fails if the body is not well-framed SSE. */
  public static List<String> payloads(String body) {
    if (!body.endsWith("\n\n")) {
      throw new AssertionError("SSE body does not end with a blank line: " + tail(body));
    }
    List<String> payloads = new ArrayList<>();
    for (String frame : body.substring(0, body.length() - 2).split("\n\n", -1)) {
      if (!frame.startsWith("data: ")) {
        throw new AssertionError("frame without 'data: ': " + frame);
      }
      payloads.add(frame.substring(6));
    }
    return payloads;
  }

  /** Every payload but the final {@code [DONE]} parsed as JSON; fails if [DONE] is not last. */
  public static List<JsonNode> jsonFrames(String body) {
    List<String> payloads = payloads(body);
    if (!payloads.get(payloads.size() - 1).equals("[DONE]")) {
      throw new AssertionError("last frame is not [DONE]: " + payloads.get(payloads.size() - 1));
    }
    List<JsonNode> frames = new ArrayList<>();
    for (String payload : payloads.subList(0, payloads.size() - 1)) {
      frames.add(json(payload));
    }
    return frames;
  }

  public static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (java.io.IOException e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }

  /** The concatenated content of chat or completion chunks. */
  public static String text(List<JsonNode> frames) {
    StringBuilder text = new StringBuilder();
    for (JsonNode frame : frames) {
      for (JsonNode choice : frame.path("choices")) {
        JsonNode content = choice.has("delta") ? choice.path("delta").path("content")
            : choice.path("text");
        if (content.isTextual()) {
          text.append(content.asText());
        }
      }
    }
    return text.toString();
  }

  private static String tail(String body) {
    return body.length() < 80 ? body : body.substring(body.length() - 80);
  }
}
