package dev.sluice.ingress.splice;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.core.http.RequestIds;
import java.util.List;

/**
 * A client's request head, parsed strictly ({@link HttpHead}) and with its framing decided: how
 * long its body is, whether it comes chunked, whether the connection closes after the answer.
 * Anything two parsers could frame differently is refused here, before a byte goes anywhere.
 */
record RequestHead(SpliceRequest request, long contentLength, boolean chunked, boolean http10,
    boolean close, boolean expectsContinue) {

  /** Parses {@code bytes[0, end)}; bodies over {@code maxBodyBytes} are refused (413). */
  static RequestHead parse(byte[] bytes, int end, long maxBodyBytes)
      throws MalformedHttpException {
    HttpHead head = HttpHead.parseRequest(bytes, end);
    boolean http10 = head.third.equals("HTTP/1.0");
    if (!http10 && !head.third.equals("HTTP/1.1")) {
      throw new MalformedHttpException(ApiError.Code.HTTP_VERSION_NOT_SUPPORTED,
          "Only HTTP/1.1 (and HTTP/1.0 for answers made here) is served, not " + head.third);
    }
    List<String> codings = head.listElements("transfer-encoding");
    boolean chunked = false;
    if (head.has("transfer-encoding")) {
      if (http10) {
        throw new MalformedHttpException("Transfer-Encoding in an HTTP/1.0 request");
      }
      if (!codings.equals(List.of("chunked")) || head.has("content-length")) {
        throw new MalformedHttpException("unsupported request framing: Transfer-Encoding "
            + String.join(", ", codings) + (head.has("content-length")
                ? " with a Content-Length" : "") + " (expected: chunked, or a Content-Length)");
      }
      chunked = true;
    }
    long length = Math.max(0, head.contentLength());
    if (length > maxBodyBytes) {
      throw new MalformedHttpException(ApiError.Code.PAYLOAD_TOO_LARGE, "The request body is "
          + length + " bytes; the limit is " + maxBodyBytes);
    }
    if (head.has("host") ? head.listElements("host").size() != 1 : !http10) {
      throw new MalformedHttpException("an HTTP/1.1 request needs exactly one Host value");
    }
    String target = RequestTarget.normalize(head.second);
    String authority = RequestTarget.authority(head.second);
    if (authority != null && !authority.equalsIgnoreCase(head.header("host"))) {
      throw new MalformedHttpException("the Host header differs from the authority of the "
          + "absolute request target");
    }
    String requestId = RequestIds.accept(head.header(SluiceHeaders.REQUEST_ID));
    SpliceRequest request = new SpliceRequest(head.first, target, head.fields, new byte[0],
        requestId);
    boolean close = http10 || head.lists("connection", "close");
    return new RequestHead(request, length, chunked, http10, close,
        head.lists("expect", "100-continue"));
  }

  /** Whether a body follows the head. */
  boolean hasBody() {
    return chunked || contentLength > 0;
  }
}
