package dev.sluice.ingress.splice;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One HTTP/1.1 message head (request or response) as parsed from bytes: the start line split in
 * three and the header fields in order. Only what the splice needs; bodies are never parsed.
 */
final class HttpHead {

  final String first;
  final String second;
  final String third;
  final List<HeaderField> fields;

  private HttpHead(String first, String second, String third, List<HeaderField> fields) {
    this.first = first;
    this.second = second;
    this.third = third;
    this.fields = fields;
  }

  /**
   * Index just past the blank line ending a head in {@code bytes[from, to)}, or -1 when the head
   * is not complete yet.
   */
  static int end(byte[] bytes, int from, int to) {
    for (int i = Math.max(from, 3); i < to; i++) {
      if (bytes[i] == '\n' && bytes[i - 1] == '\r' && bytes[i - 2] == '\n'
          && bytes[i - 3] == '\r') {
        return i + 1;
      }
    }
    return -1;
  }

  /** Parses {@code bytes[0, end)}, a whole head ending with its blank line. */
  static HttpHead parse(byte[] bytes, int end) throws MalformedHttpException {
    String text = new String(bytes, 0, end - 4, StandardCharsets.ISO_8859_1);
    String[] lines = text.split("\r\n", -1);
    String[] start = lines[0].split(" ", 3);
    if (start.length < 3 || start[0].isEmpty() || start[1].isEmpty()) {
      throw new MalformedHttpException("malformed start line");
    }
    List<HeaderField> fields = new ArrayList<>(lines.length - 1);
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      int colon = line.indexOf(':');
      if (colon <= 0 || line.charAt(0) == ' ' || line.charAt(0) == '\t'
          || Character.isWhitespace(line.charAt(colon - 1))) {
        throw new MalformedHttpException("malformed header line " + i);
      }
      fields.add(new HeaderField(line.substring(0, colon), line.substring(colon + 1).trim()));
    }
    return new HttpHead(start[0], start[1], start[2], fields);
  }

  /** The first value of a header, or null. */
  String header(String lowercaseName) {
    for (HeaderField field : fields) {
      if (field.is(lowercaseName)) {
        return field.value();
      }
    }
    return null;
  }

  /** Whether a comma-separated header (Connection, Transfer-Encoding) lists a token. */
  boolean lists(String lowercaseName, String token) {
    for (HeaderField field : fields) {
      if (field.is(lowercaseName)) {
        for (String part : field.value().split(",")) {
          if (part.trim().equalsIgnoreCase(token)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * The Content-Length, -1 when absent; conflicting or malformed values are errors (a classic
   * request-smuggling vector).
   */
  long contentLength() throws MalformedHttpException {
    long length = -1;
    for (HeaderField field : fields) {
      if (field.is("content-length")) {
        long value;
        try {
          value = Long.parseLong(field.value());
        } catch (NumberFormatException e) {
          throw new MalformedHttpException("malformed Content-Length: " + field.value());
        }
        if (value < 0 || (length >= 0 && length != value)) {
          throw new MalformedHttpException("invalid Content-Length: " + field.value());
        }
        length = value;
      }
    }
    return length;
  }

  /** Header names listed in Connection, lowercase. */
  List<String> connectionOptions() {
    return HeaderField.connectionOptions(fields);
  }
}
