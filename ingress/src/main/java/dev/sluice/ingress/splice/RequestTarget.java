package dev.sluice.ingress.splice;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;

/**
 * A request target brought to the one form both the router and the replica see (RFC 9112 §3.2,
 * RFC 3986 §6.2.2): absolute-form ({@code http://host/v1/models}) becomes origin-form, percent-
 * encoded unreserved characters are decoded ({@code %63hat} is {@code chat}), hex digits of the
 * others upper-cased, and dot segments removed. What cannot be normalised is refused: asterisk-
 * and authority-form, a scheme other than http(s), a malformed or encoded-NUL escape, a path
 * climbing above the root.
 */
final class RequestTarget {

  private RequestTarget() {}

  /**
   * The authority of an absolute-form target ({@code host:port} of {@code http://host:port/p}),
   * or null for origin-form. RFC 9112 §3.2.2: it must agree with the Host header.
   */
  static String authority(String target) {
    if (target.startsWith("/")) {
      return null;
    }
    int start = target.indexOf("://") + 3;
    int end = start;
    while (end < target.length() && target.charAt(end) != '/' && target.charAt(end) != '?') {
      end++;
    }
    return target.substring(start, end);
  }

  static String normalize(String target) throws MalformedHttpException {
    String origin = originForm(target);
    int query = origin.indexOf('?');
    String path = query < 0 ? origin : origin.substring(0, query);
    String rest = query < 0 ? "" : origin.substring(query);
    String normalized = removeDotSegments(decodeUnreserved(path)) + percentCase(rest);
    return normalized;
  }

  private static String originForm(String target) throws MalformedHttpException {
    if (target.startsWith("/")) {
      return target;
    }
    String lower = target.toLowerCase(Locale.ROOT);
    int authority = lower.startsWith("http://") ? 7 : lower.startsWith("https://") ? 8 : -1;
    if (authority < 0) {
      throw new MalformedHttpException("unsupported request target (expected: a path such as "
          + "/v1/chat/completions, or an absolute http URL)");
    }
    int path = target.indexOf('/', authority);
    int query = target.indexOf('?', authority);
    if (path < 0 || (query >= 0 && query < path)) {
      return query < 0 ? "/" : "/" + target.substring(query);
    }
    return target.substring(path);
  }

  private static String decodeUnreserved(String path) throws MalformedHttpException {
    if (path.indexOf('%') < 0) {
      return path;
    }
    StringBuilder out = new StringBuilder(path.length());
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c != '%') {
        out.append(c);
        continue;
      }
      int value = escape(path, i);
      char decoded = (char) value;
      if (isUnreserved(decoded)) {
        out.append(decoded);
      } else {
        out.append('%').append(path.substring(i + 1, i + 3).toUpperCase(Locale.ROOT));
      }
      i += 2;
    }
    return out.toString();
  }

  private static String percentCase(String rest) throws MalformedHttpException {
    if (rest.indexOf('%') < 0) {
      return rest;
    }
    StringBuilder out = new StringBuilder(rest.length());
    for (int i = 0; i < rest.length(); i++) {
      char c = rest.charAt(i);
      if (c == '%') {
        escape(rest, i);
        out.append('%').append(rest.substring(i + 1, i + 3).toUpperCase(Locale.ROOT));
        i += 2;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** The byte a {@code %XX} escape at {@code at} stands for; malformed or NUL is refused. */
  private static int escape(String text, int at) throws MalformedHttpException {
    if (at + 2 >= text.length()) {
      throw new MalformedHttpException("a percent escape in the request target is cut short");
    }
    int high = Character.digit(text.charAt(at + 1), 16);
    int low = Character.digit(text.charAt(at + 2), 16);
    if (high < 0 || low < 0) {
      throw new MalformedHttpException("malformed percent escape in the request target");
    }
    int value = high * 16 + low;
    if (value == 0) {
      throw new MalformedHttpException("an encoded NUL in the request target");
    }
    return value;
  }

  private static boolean isUnreserved(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '-' || c == '.' || c == '_' || c == '~';
  }

  /** RFC 3986 §5.2.4, refusing a path that climbs above the root. */
  private static String removeDotSegments(String path) throws MalformedHttpException {
    if (!path.contains(".")) {
      return path;
    }
    Deque<String> segments = new ArrayDeque<>();
    String[] parts = path.substring(1).split("/", -1);
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      boolean last = i == parts.length - 1;
      if (part.equals(".")) {
        if (last) {
          segments.addLast("");
        }
      } else if (part.equals("..")) {
        if (segments.isEmpty()) {
          throw new MalformedHttpException("the request target climbs above the root");
        }
        segments.removeLast();
        if (last) {
          segments.addLast("");
        }
      } else {
        segments.addLast(part);
      }
    }
    return "/" + String.join("/", segments);
  }
}
