package dev.sluice.ingress.splice;

/** Byte classes of HTTP/1.1's grammar (RFC 9110 §5.6.2, RFC 3986 §2), by table lookup. */
final class Tokens {

  private static final boolean[] TCHAR = new boolean[128];
  private static final boolean[] TARGET = new boolean[128];

  static {
    for (char c = '0'; c <= '9'; c++) {
      TCHAR[c] = true;
    }
    for (char c = 'a'; c <= 'z'; c++) {
      TCHAR[c] = true;
      TCHAR[Character.toUpperCase(c)] = true;
    }
    for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
      TCHAR[c] = true;
    }
    for (int c = 0; c < 128; c++) {
      TARGET[c] = Character.isLetterOrDigit(c);
    }
    // unreserved, gen-delims but '#', sub-delims, and '%' for percent-encoding
    for (char c : "-._~:/?[]@!$&'()*+,;=%".toCharArray()) {
      TARGET[c] = true;
    }
  }

  private Tokens() {}

  /** A character of a token: method, field name, transfer coding. */
  static boolean isTchar(byte b) {
    return b > 0 && TCHAR[b];
  }

  /** A character allowed in a request target (no fragment, no space, no control). */
  static boolean isTargetChar(byte b) {
    return b > 0 && TARGET[b];
  }

  /** A character of a field value: visible ASCII, SP, HTAB, and obs-text only if allowed. */
  static boolean isValueChar(byte b, boolean obsTextAllowed) {
    if (b < 0) {
      return obsTextAllowed;
    }
    return b == '\t' || (b >= 0x20 && b != 0x7f);
  }

  /** Whether every character of {@code text} is a tchar (a non-empty token). */
  static boolean isToken(CharSequence text) {
    if (text.length() == 0) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c >= 128 || !TCHAR[c]) {
        return false;
      }
    }
    return true;
  }

  /** A byte as an error message shows it: {@code 0x0a}. */
  static String describe(byte b) {
    return String.format("0x%02x", b & 0xff);
  }
}
