package dev.sluice.core.http;

import java.util.UUID;

/**
 * The request id rule of every edge (the ingress's data paths, the router's {@code
 * /internal/route}): the client's {@code x-request-id} is kept only when it is a safe token, 1 to
 * {@value #MAX_LENGTH} characters of {@code [A-Za-z0-9._:-]}; otherwise (or when none was sent)
 * the request gets a new UUID. The id is written into the replica's request head, the client's
 * answer head and logs, so it must never carry a byte a parser or a log reader could misread.
 */
public final class RequestIds {

  public static final int MAX_LENGTH = 128;

  private RequestIds() {}

  /** The id a request gets, given the client's header value (null when not sent). */
  public static String accept(String sent) {
    return isSafe(sent) ? sent : UUID.randomUUID().toString();
  }

  public static boolean isSafe(String id) {
    if (id == null || id.isEmpty() || id.length() > MAX_LENGTH) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '.' || c == '_' || c == ':' || c == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
