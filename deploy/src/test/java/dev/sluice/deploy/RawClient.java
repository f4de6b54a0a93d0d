package dev.sluice.deploy;

import dev.sluice.core.testing.RawHttp;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Sends exact bytes on a fresh connection and reads the answers: for hostile-input tests. */
final class RawClient {

  private RawClient() {}

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * Writes {@code request} and reads up to {@code answers} final answers (informational ones are
   * skipped), fewer if the connection closes first. When {@code request} starts with a
   * {@code HEAD}, its answer is read without a body.
   */
  static List<RawHttp.Response> exchange(int port, byte[] request, int answers)
      throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(15_000);
      socket.getOutputStream().write(request);
      socket.getOutputStream().flush();
      InputStream in = new BufferedInputStream(socket.getInputStream());
      List<RawHttp.Response> responses = new ArrayList<>();
      boolean head = new String(request, 0, Math.min(5, request.length),
          StandardCharsets.ISO_8859_1).equals("HEAD ");
      while (responses.size() < answers) {
        RawHttp.Response response = RawHttp.response(in, head && responses.isEmpty());
        if (response == null) {
          break;
        }
        if (response.status() >= 200) {
          responses.add(response);
        }
      }
      return responses;
    }
  }

  /** One answer to {@code request}, which must come. */
  static RawHttp.Response exchange(int port, String request) throws IOException {
    List<RawHttp.Response> responses = exchange(port, bytes(request), 1);
    if (responses.isEmpty()) {
      throw new IOException("the connection closed without an answer");
    }
    return responses.get(0);
  }
}
