package dev.sluice.core.http;

import java.util.Optional;
import java.util.function.Function;

/**
 * Request bodies are taken as they are sent, never decoded: replicas and engines read them as
 * JSON text. A body in a content coding (gzip, say) is refused with 415 before it is read, with
 * {@code Accept-Encoding: identity} naming what is accepted (RFC 9110), by the ingress on both
 * data paths and by the replica endpoints (HAProxy's data plane sends such a body to one, also
 * where an external engine takes the replica's other completions).
 */
public final class ContentCoding {

  /** The request header, lowercase. */
  public static final String HEADER = "content-encoding";
  /** The answer's header naming the one coding accepted. */
  public static final String ACCEPT_HEADER = "Accept-Encoding";
  public static final String IDENTITY = "identity";

  private ContentCoding() {}

  /**
   * The error for a request's header fields, whatever the server's header type: every
   * {@code Content-Encoding} line counts, so an {@code identity} line cannot hide a second one.
   */
  public static <H> Optional<ApiError> refusal(Iterable<H> headers, Function<H, String> name,
      Function<H, String> value) {
    for (H header : headers) {
      if (name.apply(header).equalsIgnoreCase(HEADER)) {
        Optional<ApiError> refusal = refusal(value.apply(header));
        if (refusal.isPresent()) {
          return refusal;
        }
      }
    }
    return Optional.empty();
  }

  /** The error for one {@code Content-Encoding} line, or empty when it is identity (or blank). */
  public static Optional<ApiError> refusal(String value) {
    String coding = value.strip();
    if (coding.isEmpty() || coding.equalsIgnoreCase(IDENTITY)) {
      return Optional.empty();
    }
    String shown = coding.length() > 64 ? coding.substring(0, 64) + "..." : coding;
    return Optional.of(new ApiError(ApiError.Code.UNSUPPORTED_MEDIA_TYPE,
        "Content-Encoding: " + shown + " (expected: identity; send the body uncompressed)",
        null));
  }
}
