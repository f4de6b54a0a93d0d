package dev.sluice.ingress.splice;

import java.nio.charset.StandardCharsets;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpResponse;

/** Renders a strict Pekko {@link HttpResponse} as HTTP/1.1 bytes, for answers made here. */
final class ResponseRenderer {

  private ResponseRenderer() {}

  static byte[] render(HttpResponse response, boolean close) {
    if (!(response.entity() instanceof HttpEntity.Strict strict)) {
      throw new IllegalArgumentException("only strict responses are rendered here");
    }
    byte[] body = strict.getData().toArray();
    StringBuilder head = new StringBuilder(256);
    head.append("HTTP/1.1 ").append(response.status().intValue()).append(' ')
        .append(response.status().reason()).append("\r\n");
    for (HttpHeader header : response.getHeaders()) {
      head.append(header.name()).append(": ").append(header.value()).append("\r\n");
    }
    if (!response.entity().getContentType().equals(
        org.apache.pekko.http.javadsl.model.ContentTypes.NO_CONTENT_TYPE)) {
      head.append("Content-Type: ").append(response.entity().getContentType()).append("\r\n");
    }
    head.append("Content-Length: ").append(body.length).append("\r\n");
    if (close) {
      head.append("Connection: close\r\n");
    }
    head.append("\r\n");
    byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
    byte[] all = new byte[headBytes.length + body.length];
    System.arraycopy(headBytes, 0, all, 0, headBytes.length);
    System.arraycopy(body, 0, all, headBytes.length, body.length);
    return all;
  }
}
