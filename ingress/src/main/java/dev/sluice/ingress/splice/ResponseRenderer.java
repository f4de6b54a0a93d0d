package dev.sluice.ingress.splice;

import dev.sluice.core.http.ReasonPhrases;
import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.HeaderField;
import java.nio.charset.StandardCharsets;

/** Renders an {@link Answer} made here as HTTP/1.1 bytes. */
final class ResponseRenderer {

  private ResponseRenderer() {}

  /**
   * The answer's head and body; {@code withBody} false (the answer to a {@code HEAD}) leaves the
   * body out and keeps the Content-Length its {@code GET} would have.
   */
  static byte[] render(Answer answer, boolean close, boolean withBody) {
    byte[] body = answer.body();
    StringBuilder head = new StringBuilder(256);
    head.append("HTTP/1.1 ").append(answer.status()).append(' ')
        .append(ReasonPhrases.of(answer.status())).append("\r\n");
    for (HeaderField header : answer.headers()) {
      head.append(header.name()).append(": ").append(header.value()).append("\r\n");
    }
    head.append("Content-Type: ").append(answer.contentType()).append("\r\n");
    head.append("Content-Length: ").append(body.length).append("\r\n");
    if (close) {
      head.append("Connection: close\r\n");
    }
    head.append("\r\n");
    byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
    if (!withBody) {
      return headBytes;
    }
    byte[] all = new byte[headBytes.length + body.length];
    System.arraycopy(headBytes, 0, all, 0, headBytes.length);
    System.arraycopy(body, 0, all, headBytes.length, body.length);
    return all;
  }
}
