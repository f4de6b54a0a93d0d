package dev.sluice.ingress.splice;

import dev.sluice.core.http.ApiError;

/**
 * A message the splice will not take: malformed (400, or 502 for a replica's answer), too large
 * (413) or with no room left to buffer it (503). The connection it came on is closed.
 */
class MalformedHttpException extends Exception {

  private final ApiError.Code code;

  MalformedHttpException(String message) {
    this(ApiError.Code.INVALID_REQUEST, message);
  }

  MalformedHttpException(ApiError.Code code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  /** How a client is answered (a replica's malformed answer is a 502 whatever this says). */
  ApiError.Code code() {
    return code;
  }
}
