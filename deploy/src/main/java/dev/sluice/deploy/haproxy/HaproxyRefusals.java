package dev.sluice.deploy.haproxy;

import dev.sluice.core.http.ApiError;
import java.util.List;

/**
 * Requests HAProxy's parser takes that the ingress refuses, because a replica's endpoint would
 * read them differently (the ingress's {@code HttpHead}): refused before any other rule, with
 * the ingress's 400. HAProxy re-frames what it forwards (CRLF line ends, unfolded values, one
 * Content-Length), so the rest of what it is lenient about reaches a replica as it read it.
 */
final class HaproxyRefusals {

  /**
   * A byte the ingress refuses in a header value: a control byte (HTAB aside; CR and LF end the
   * lines of {@code req.hdrs}) or one outside ASCII (RFC 9110 obs-text). PCRE syntax, for
   * HAProxy's {@code -m reg} (a binary without PCRE is refused by {@link HaproxyBinary}).
   */
  private static final String BAD_VALUE_BYTE = "[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\xff]";
  /** The name of the first header field whose value has such a byte, from {@code req.hdrs}. */
  private static final String FIRST_BAD_NAME = "%[req.hdrs,regsub(\"^(?:[^\\r\\n]*\\r\\n)*?"
      + "([^:\\r\\n]*):[^\\r\\n]*" + BAD_VALUE_BYTE + "(?s:.*)$\",\"\\1\"),json(utf8s)]";

  /** A refused request's connection is closed after the answer, as the ingress closes it. */
  private static final String CLOSE = "hdr connection close";

  private HaproxyRefusals() {}

  static void lines(List<String> out) {
    // Pekko HTTP decodes such bytes as UTF-8: after a lead byte it took the CRLF and the next
    // field (a Content-Length, say) as part of the character, read no body, and ran the body as
    // the connection's next request, one the router never chose and HAProxy never saw.
    out.add("  acl sluice_bad_value_byte req.hdrs -m reg '" + BAD_VALUE_BYTE + "'");
    out.add("  http-request return status 400 content-type application/json lf-string '"
        + new ApiError(ApiError.Code.INVALID_REQUEST, "header NAME has a control byte or a byte "
            + "outside ASCII", null).toJson().replace("NAME", FIRST_BAD_NAME)
        + "' " + CLOSE + " if sluice_bad_value_byte");
    // Chunked framing is HTTP/1.1's: the ingress refuses it in an HTTP/1.0 request, and a
    // replica's endpoint resets the connection (HAProxy answered 502, as if the replica failed).
    out.add("  http-request return status 400 content-type application/json string '"
        + ApiError.invalid("Transfer-Encoding", "Transfer-Encoding in an HTTP/1.0 request")
            .toJson() + "' " + CLOSE
        + " if { req.ver 1.0 } { req.hdr(transfer-encoding) -m found }");
  }

  /**
   * A completion body without a Content-Length: chunked, or over HTTP/2 without one (HAProxy
   * sends it on chunked). A replica's endpoint misreads obs-text in a trailer as in a head (the
   * CRLF after a lead byte is taken into the value) and then waits, for as long as its idle
   * timeout, for a trailer section that has ended; HAProxy forwards trailers as they came and
   * cannot see them. With the node's ingress known, the Lua action sends such a request there,
   * which reads chunked framing and trailers as strictly as heads. Without one (a self-run
   * HAProxy rendered without {@code --ingress}) it is refused: clients can send a
   * Content-Length, and OpenAI's do.
   */
  static void unsized(List<String> out, boolean toIngress, String completion) {
    String unsized = "!{ req.hdr(content-length) -m found }";
    if (toIngress) {
      out.add("  http-request set-var(txn.sluice_unsized) bool(true) if " + unsized);
      return;
    }
    out.add("  http-request return status 411 content-type application/json string '"
        + new ApiError(ApiError.Code.LENGTH_REQUIRED, "A body without a Content-Length: send "
            + "one (this HAProxy runs without the ingress, which reads chunked bodies)",
            "Content-Length").toJson() + "' " + CLOSE + " if " + unsized + " " + completion);
  }
}
