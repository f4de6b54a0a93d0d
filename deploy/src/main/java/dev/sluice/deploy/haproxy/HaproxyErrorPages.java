package dev.sluice.deploy.haproxy;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.ReasonPhrases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * HAProxy's own answers in the shape the ingress answers with, instead of its HTML pages. They
 * are {@code errorfile}s, files beside the Lua action: HAProxy answers a request it cannot parse
 * (bad framing, a bad request line, a head over its buffer) before any rule runs, with the
 * proxy's error file for that status or its built-in HTML page; an {@code http-error} line is
 * not used there. A page is a whole HTTP answer and closes the connection, as HAProxy's own do.
 */
final class HaproxyErrorPages {

  /** One status's page: the file HAProxy loads and the answer in it. */
  record Page(int status, String file, String answer) {}

  private HaproxyErrorPages() {}

  /** Every status HAProxy answers itself, parsing a request or reaching a replica. */
  static List<Page> pages(HaproxyTimeouts timeouts) {
    return List.of(
        json(ApiError.Code.INVALID_REQUEST, "Bad request: not valid HTTP/1.1 to HAProxy (the "
            + "request line, a header field or the body's framing), or a head over its buffer"),
        json(ApiError.Code.REQUEST_TIMEOUT,
            "The request did not arrive within " + HaproxyTimeouts.words(timeouts.request())),
        json(ApiError.Code.PAYLOAD_TOO_LARGE,
            "A body where HAProxy takes none (GET, HEAD or DELETE over HTTP/1.0)"),
        json(ApiError.Code.UNPROCESSABLE_CONTENT,
            "Transfer-Encoding: only chunked is supported"),
        json(ApiError.Code.INTERNAL, "HAProxy failed on this request"),
        json(ApiError.Code.NOT_IMPLEMENTED, "HAProxy does not implement what the request asks"),
        json(ApiError.Code.UPSTREAM_FAILED,
            "The replica failed: its answer was cut off or not valid HTTP"),
        // No connection to the pinned replica's server (or none up, for an unpinned request):
        // as the ingress answers a replica that refuses, fail closed with the reason.
        page(503, "text/plain", List.of("X-Serve-Reason: replica_unreachable",
            "x-sluice-detail: HAProxy could not connect to the replica's server"),
            "Ingress request router failed: replica_unreachable"),
        json(ApiError.Code.UPSTREAM_TIMEOUT,
            "The replica did not answer within " + HaproxyTimeouts.words(timeouts.server())));
  }

  /** The config's lines loading each page from {@code dir}. */
  static void lines(List<String> out, Path dir, HaproxyTimeouts timeouts) {
    for (Page page : pages(timeouts)) {
      out.add("  errorfile " + page.status() + " "
          + HaproxyConfig.quoted(dir.resolve(page.file()).toAbsolutePath().toString()));
    }
  }

  /** Writes the pages into {@code dir}, each only when its content changed. */
  static void write(Path dir, HaproxyTimeouts timeouts) throws IOException {
    for (Page page : pages(timeouts)) {
      HaproxyDataPlane.writeIfChanged(dir.resolve(page.file()), page.answer());
    }
  }

  private static Page json(ApiError.Code code, String message) {
    return page(code.status(), "application/json", List.of(),
        new ApiError(code, message, null).toJson());
  }

  private static Page page(int status, String contentType, List<String> headers, String body) {
    StringBuilder answer = new StringBuilder("HTTP/1.1 ").append(status).append(' ')
        .append(ReasonPhrases.of(status)).append("\r\n")
        .append("Content-Type: ").append(contentType).append("\r\n")
        .append("Content-Length: ").append(body.getBytes(StandardCharsets.UTF_8).length)
        .append("\r\n")
        .append("Cache-Control: no-cache\r\n")
        .append("Connection: close\r\n");
    for (String header : headers) {
      answer.append(header).append("\r\n");
    }
    answer.append("\r\n").append(body);
    return new Page(status, "sluice_error_" + status + ".http", answer.toString());
  }
}
