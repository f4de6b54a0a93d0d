package dev.sluice.core.http;

/** Minimal JSON string escaping for hand-built hot-path JSON (SSE chunks, error bodies). */
public final class JsonText {

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private JsonText() {}

  /** Appends {@code value} as a quoted JSON string. */
  public static void appendQuoted(StringBuilder out, String value) {
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  public static String quote(String value) {
    StringBuilder out = new StringBuilder(value.length() + 2);
    appendQuoted(out, value);
    return out.toString();
  }
}
