package dev.sluice.ingress.splice;

import java.util.List;

/**
 * A complete client request as the splice read it: method, request target (path and query, as
 * sent), header fields in order and the whole body.
 */
public record SpliceRequest(String method, String target, List<HeaderField> headers,
    byte[] body) {

  /** The first value of a header, or null. */
  public String header(String lowercaseName) {
    for (HeaderField field : headers) {
      if (field.is(lowercaseName)) {
        return field.value();
      }
    }
    return null;
  }

  /** The path without the query. */
  public String path() {
    int query = target.indexOf('?');
    return query < 0 ? target : target.substring(0, query);
  }
}
