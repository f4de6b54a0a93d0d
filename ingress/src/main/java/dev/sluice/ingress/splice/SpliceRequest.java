package dev.sluice.ingress.splice;

import dev.sluice.ingress.edge.HeaderField;
import java.util.List;

/**
 * A client request as the splice read it: method, request target (normalised origin-form),
 * header fields in order, the whole body, and the id the request goes by (the client's
 * {@code x-request-id} when it is a safe token, else a new one).
 */
public record SpliceRequest(String method, String target, List<HeaderField> headers,
    byte[] body, String requestId) {

  /** The first value of a header, or null. */
  public String header(String lowercaseName) {
    return HeaderField.first(headers, lowercaseName);
  }

  /** The path without the query. */
  public String path() {
    int query = target.indexOf('?');
    return query < 0 ? target : target.substring(0, query);
  }

  /** The same request with its body. */
  SpliceRequest withBody(byte[] bytes) {
    return new SpliceRequest(method, target, headers, bytes, requestId);
  }
}
