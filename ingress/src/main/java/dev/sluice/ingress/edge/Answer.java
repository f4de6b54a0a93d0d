package dev.sluice.ingress.edge;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An answer made by the ingress itself (an error, a fail-closed refusal, a model list): status,
 * extra header fields, content type and the whole body. Every header value passes through
 * {@link #safeValue}, so nothing a client sent (a model name inside a detail, say) can put a line
 * break or a non-ASCII byte into a head.
 */
public record Answer(int status, List<HeaderField> headers, String contentType, byte[] body) {

  public static final String JSON = "application/json";
  public static final String TEXT = "text/plain; charset=UTF-8";
  /** Longest header value written, in characters (details are cut there). */
  static final int MAX_VALUE_LENGTH = 512;

  public Answer {
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(body, "body");
    List<HeaderField> safe = new ArrayList<>(headers.size());
    for (HeaderField field : headers) {
      safe.add(new HeaderField(field.name(), safeValue(field.value())));
    }
    headers = List.copyOf(safe);
  }

  public static Answer json(int status, String body) {
    return new Answer(status, List.of(), JSON, body.getBytes(StandardCharsets.UTF_8));
  }

  public static Answer text(int status, String body) {
    return new Answer(status, List.of(), TEXT, body.getBytes(StandardCharsets.UTF_8));
  }

  /** The same answer with one more header field. */
  public Answer with(String name, String value) {
    List<HeaderField> more = new ArrayList<>(headers);
    more.add(new HeaderField(name, value));
    return new Answer(status, more, contentType, body);
  }

  /** The first value of a header, or null. */
  public String header(String lowercaseName) {
    return HeaderField.first(headers, lowercaseName);
  }

  /**
   * {@code value} as it may be written into a head: visible ASCII and spaces only (anything else
   * becomes {@code ?}), at most {@link #MAX_VALUE_LENGTH} characters, no surrounding spaces.
   */
  public static String safeValue(String value) {
    int length = Math.min(value.length(), MAX_VALUE_LENGTH);
    StringBuilder safe = null;
    for (int i = 0; i < length; i++) {
      char c = value.charAt(i);
      boolean ok = c >= 0x20 && c < 0x7f;
      if (!ok && safe == null) {
        safe = new StringBuilder(length).append(value, 0, i);
      }
      if (safe != null) {
        safe.append(ok ? c : '?');
      }
    }
    String result = safe != null ? safe.toString()
        : length < value.length() ? value.substring(0, length) : value;
    return result.strip();
  }
}
