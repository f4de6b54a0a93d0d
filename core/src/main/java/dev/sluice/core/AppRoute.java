package dev.sluice.core;

/**
 * The application a request path belongs to, as Ray Serve's proxy decides it: the application
 * with the longest route prefix that is the whole path or a leading run of its segments
 * ({@code /chat} takes {@code /chat} and {@code /chat/v1/models}, not {@code /chatbot}).
 *
 * @param app the application's name
 * @param prefix its route prefix
 * @param path the path within the application: the request's path without the prefix, always
 *     starting with {@code /} ({@code /chat/v1/models} under {@code /chat} is {@code /v1/models})
 */
public record AppRoute(String app, String prefix, String path) {

  /** Whether {@code prefix} takes {@code path} (segment-wise; {@code /} takes every path). */
  public static boolean takes(String prefix, String path) {
    if (prefix.equals("/")) {
      return true;
    }
    return path.startsWith(prefix)
        && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/');
  }

  /** {@code path} as the application under {@code prefix} sees it. */
  public static String within(String prefix, String path) {
    if (prefix.equals("/")) {
      return path;
    }
    return path.length() == prefix.length() ? "/" : path.substring(prefix.length());
  }
}
