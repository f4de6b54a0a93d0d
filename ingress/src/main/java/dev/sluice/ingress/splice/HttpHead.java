package dev.sluice.ingress.splice;

import dev.sluice.ingress.edge.HeaderField;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One HTTP/1.1 message head (request or response) as parsed from bytes: the start line split in
 * three and the header fields in order. Parsing is as strict as RFC 9112 allows a recipient to
 * be, because the head is forwarded to a replica whose own parser must read it exactly as we did:
 * lines end in CRLF only (a bare LF or CR is refused, never taken as a line end), no control
 * byte anywhere, field names are tokens with no space before the colon, no obs-fold, and a
 * request's field values are ASCII (RFC 9110 §5.5 obs-text is refused: Pekko HTTP decodes such
 * bytes as UTF-8 and can take the CRLF after a lead byte as part of the character).
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
   * Index just past the blank line ending a head in {@code bytes[0, to)}, or -1 when the head is
   * not complete yet; {@code from} is where the previous call stopped (bytes before it were
   * checked). A bare LF or CR is refused at once, not held until a timeout.
   */
  static int end(byte[] bytes, int from, int to) throws MalformedHttpException {
    for (int i = from; i < to; i++) {
      byte b = bytes[i];
      if (b == '\n') {
        if (i == 0 || bytes[i - 1] != '\r') {
          throw new MalformedHttpException("a line ends in a bare LF (expected: CRLF)");
        }
        if (i >= 3 && bytes[i - 2] == '\n' && bytes[i - 3] == '\r') {
          return i + 1;
        }
      } else if (b == '\r' && i + 1 < to && bytes[i + 1] != '\n') {
        throw new MalformedHttpException("a bare CR in the head (expected: CRLF)");
      }
    }
    return -1;
  }

  /** Where {@link #end} may resume after scanning {@code bytes[0, to)} without finding the end. */
  static int resumeFrom(int to) {
    return Math.max(0, to - 3);
  }

  /** Parses a request head {@code bytes[0, end)}: method, request target, version. */
  static HttpHead parseRequest(byte[] bytes, int end) throws MalformedHttpException {
    int lineEnd = lineEnd(bytes, 0, end);
    int sp1 = indexOf(bytes, (byte) ' ', 0, lineEnd);
    int sp2 = sp1 < 0 ? -1 : indexOf(bytes, (byte) ' ', sp1 + 1, lineEnd);
    if (sp1 <= 0 || sp2 < 0 || sp2 == sp1 + 1 || sp2 == lineEnd - 1
        || indexOf(bytes, (byte) ' ', sp2 + 1, lineEnd) >= 0) {
      throw new MalformedHttpException(
          "malformed request line (expected: METHOD SP request-target SP HTTP-version)");
    }
    for (int i = 0; i < sp1; i++) {
      if (!Tokens.isTchar(bytes[i])) {
        throw new MalformedHttpException("the method has an invalid character "
            + Tokens.describe(bytes[i]));
      }
    }
    for (int i = sp1 + 1; i < sp2; i++) {
      if (!Tokens.isTargetChar(bytes[i])) {
        throw new MalformedHttpException("the request target has an invalid character "
            + Tokens.describe(bytes[i]));
      }
    }
    String version = ascii(bytes, sp2 + 1, lineEnd);
    if (!isVersion(version)) {
      throw new MalformedHttpException("malformed HTTP version (expected: HTTP/1.1)");
    }
    List<HeaderField> fields = parseFields(bytes, lineEnd + 2, end, false);
    return new HttpHead(ascii(bytes, 0, sp1), ascii(bytes, sp1 + 1, sp2), version, fields);
  }

  /**
   * Parses a response head {@code bytes[0, end)}: version, status code, reason. Field values may
   * carry obs-text here (they go to the client, which asked this replica), never controls.
   */
  static HttpHead parseResponse(byte[] bytes, int end) throws MalformedHttpException {
    int lineEnd = lineEnd(bytes, 0, end);
    int sp1 = indexOf(bytes, (byte) ' ', 0, lineEnd);
    if (sp1 < 0 || !isVersion(ascii(bytes, 0, sp1)) || lineEnd - sp1 < 4) {
      throw new MalformedHttpException("malformed status line");
    }
    for (int i = sp1 + 1; i < sp1 + 4; i++) {
      if (bytes[i] < '0' || bytes[i] > '9') {
        throw new MalformedHttpException("malformed status code");
      }
    }
    if (lineEnd > sp1 + 4 && bytes[sp1 + 4] != ' ') {
      throw new MalformedHttpException("malformed status line");
    }
    for (int i = sp1 + 5; i < lineEnd; i++) {
      if (!Tokens.isValueChar(bytes[i], true)) {
        throw new MalformedHttpException("the reason phrase has an invalid character "
            + Tokens.describe(bytes[i]));
      }
    }
    String reason = lineEnd > sp1 + 5 ? latin1(bytes, sp1 + 5, lineEnd) : "";
    List<HeaderField> fields = parseFields(bytes, lineEnd + 2, end, true);
    return new HttpHead(ascii(bytes, 0, sp1), ascii(bytes, sp1 + 1, sp1 + 4), reason, fields);
  }

  private static boolean isVersion(String version) {
    return version.length() == 8 && version.startsWith("HTTP/") && version.charAt(6) == '.'
        && Character.isDigit(version.charAt(5)) && Character.isDigit(version.charAt(7))
        && version.charAt(5) < 128 && version.charAt(7) < 128;
  }

  /** Header fields from {@code from} up to the blank line ending at {@code end}. */
  private static List<HeaderField> parseFields(byte[] bytes, int from, int end,
      boolean obsTextAllowed) throws MalformedHttpException {
    List<HeaderField> fields = new ArrayList<>();
    int line = from;
    while (line < end - 2) {
      int lineEnd = lineEnd(bytes, line, end);
      int colon = indexOf(bytes, (byte) ':', line, lineEnd);
      if (line == lineEnd) {
        break;
      }
      if (bytes[line] == ' ' || bytes[line] == '\t') {
        throw new MalformedHttpException("obsolete line folding (a field line starts with "
            + "whitespace)");
      }
      if (colon <= line) {
        throw new MalformedHttpException("a field line has no name or no colon");
      }
      for (int i = line; i < colon; i++) {
        if (!Tokens.isTchar(bytes[i])) {
          throw new MalformedHttpException("a header name has an invalid character "
              + Tokens.describe(bytes[i]));
        }
      }
      String name = ascii(bytes, line, colon);
      int valueStart = colon + 1;
      int valueEnd = lineEnd;
      while (valueStart < valueEnd && isWhitespace(bytes[valueStart])) {
        valueStart++;
      }
      while (valueEnd > valueStart && isWhitespace(bytes[valueEnd - 1])) {
        valueEnd--;
      }
      for (int i = valueStart; i < valueEnd; i++) {
        if (!Tokens.isValueChar(bytes[i], obsTextAllowed)) {
          throw new MalformedHttpException("header " + name.toLowerCase(Locale.ROOT)
              + (bytes[i] < 0 ? " has a byte outside ASCII " : " has an invalid character ")
              + Tokens.describe(bytes[i]));
        }
      }
      fields.add(new HeaderField(name, latin1(bytes, valueStart, valueEnd)));
      line = lineEnd + 2;
    }
    return fields;
  }

  private static boolean isWhitespace(byte b) {
    return b == ' ' || b == '\t';
  }

  /** Index of the CR of the CRLF ending the line that starts at {@code from}. */
  private static int lineEnd(byte[] bytes, int from, int end) throws MalformedHttpException {
    for (int i = from; i < end - 1; i++) {
      if (bytes[i] == '\r' && bytes[i + 1] == '\n') {
        return i;
      }
    }
    throw new MalformedHttpException("a line does not end in CRLF");
  }

  private static int indexOf(byte[] bytes, byte wanted, int from, int to) {
    for (int i = from; i < to; i++) {
      if (bytes[i] == wanted) {
        return i;
      }
    }
    return -1;
  }

  private static String ascii(byte[] bytes, int from, int to) {
    return new String(bytes, from, to - from, StandardCharsets.US_ASCII);
  }

  private static String latin1(byte[] bytes, int from, int to) {
    return new String(bytes, from, to - from, StandardCharsets.ISO_8859_1);
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

  /** Whether a comma-separated header (Connection, Expect) lists a token, on any of its lines. */
  boolean lists(String lowercaseName, String token) {
    return listElements(lowercaseName).contains(token.toLowerCase(Locale.ROOT));
  }

  /**
   * Every element of a list header over all its lines, lowercase and trimmed, empty elements
   * dropped (RFC 9110 §5.6.1): several Transfer-Encoding lines are one list.
   */
  List<String> listElements(String lowercaseName) {
    List<String> elements = new ArrayList<>();
    for (HeaderField field : fields) {
      if (field.is(lowercaseName)) {
        for (String part : field.value().split(",", -1)) {
          String element = part.strip().toLowerCase(Locale.ROOT);
          if (!element.isEmpty()) {
            elements.add(element);
          }
        }
      }
    }
    return elements;
  }

  /** Whether any line of this header is present. */
  boolean has(String lowercaseName) {
    return header(lowercaseName) != null;
  }

  /**
   * The Content-Length, -1 when absent. Only digits are a length ({@code +5}, {@code -0},
   * {@code 5, 5} and spaces inside are refused), and every line must say the same (a classic
   * request-smuggling vector).
   */
  long contentLength() throws MalformedHttpException {
    long length = -1;
    for (HeaderField field : fields) {
      if (field.is("content-length")) {
        long value = digits(field.value());
        if (length >= 0 && length != value) {
          throw new MalformedHttpException("conflicting Content-Length values");
        }
        length = value;
      }
    }
    return length;
  }

  private static long digits(String value) throws MalformedHttpException {
    if (value.isEmpty() || value.length() > 18) {
      throw new MalformedHttpException("malformed Content-Length (expected: 1 to 18 digits)");
    }
    long result = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        throw new MalformedHttpException("malformed Content-Length (expected: digits only)");
      }
      result = result * 10 + (c - '0');
    }
    return result;
  }

  /** Header names listed in Connection, lowercase. */
  List<String> connectionOptions() {
    return listElements("connection");
  }
}
