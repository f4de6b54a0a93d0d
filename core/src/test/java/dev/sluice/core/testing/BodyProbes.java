package dev.sluice.core.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * Request bodies an HTTP server must refuse with an answer the client gets to read: too large
 * (by its Content-Length, or chunked) and stalled. Each returns the server's first answer, or
 * null when the connection was closed or reset before one arrived.
 */
public final class BodyProbes {

  private static final int CHUNK = 64 * 1024;

  private BodyProbes() {}

  /**
   * POSTs a body of {@code size} bytes (not JSON) to {@code path}, with a Content-Length or in
   * chunks of 64 KiB, all of it, then reads the answer.
   */
  public static RawHttp.Response post(int port, String path, long size, boolean chunked)
      throws IOException {
    return send(port, "POST", path, size, chunked);
  }

  /** {@link #post} with another method. */
  public static RawHttp.Response send(int port, String method, String path, long size,
      boolean chunked) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(head(method, path,
          chunked ? "Transfer-Encoding: chunked" : "Content-Length: " + size));
      byte[] chunk = new byte[CHUNK];
      Arrays.fill(chunk, (byte) 'a');
      try {
        for (long left = size; left > 0; left -= CHUNK) {
          int length = (int) Math.min(CHUNK, left);
          if (chunked) {
            out.write((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
          }
          out.write(chunk, 0, length);
          if (chunked) {
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
          }
        }
        if (chunked) {
          out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.flush();
      } catch (SocketException e) {
        return null;  // reset while sending: the answer, if any, was lost with it
      }
      return answer(socket);
    }
  }

  /**
   * Sends a head announcing a body of 100 bytes (or a chunked one) and 9 bytes of it, then waits
   * up to {@code wait} for the answer.
   */
  public static RawHttp.Response stalled(int port, String path, boolean chunked, Duration wait)
      throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(Math.toIntExact(wait.toMillis()));
      OutputStream out = socket.getOutputStream();
      out.write(head("POST", path,
          chunked ? "Transfer-Encoding: chunked" : "Content-Length: 100"));
      out.write((chunked ? "9\r\n{\"model\":\r\n" : "{\"model\":")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      return answer(socket);
    }
  }

  /** Sends a head announcing a body of {@code length} bytes, and 2 of them, then reads. */
  public static RawHttp.Response announced(int port, String path, long length)
      throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(head("POST", path, "Content-Length: " + length));
      out.write("{}".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      return answer(socket);
    }
  }

  /**
   * Sends a head ({@code method}) announcing a body of {@code length} bytes with {@code Expect:
   * 100-continue}, and no body, then reads the first answer (a {@code 100 Continue} if the
   * server wants the body).
   */
  public static RawHttp.Response expecting(int port, String method, String path, long length)
      throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(head(method, path, "Content-Length: " + length + "\r\nExpect: 100-continue"));
      out.flush();
      return answer(socket);
    }
  }

  /**
   * The answers to a body of {@code size} bytes sent whole with a Content-Length, then chunked,
   * and to one of {@code announced} bytes held back for 100 Continue (in that order): what a
   * server must answer 413, not reset, however far the body is over its limit.
   */
  public static java.util.List<RawHttp.Response> farTooLarge(int port, String method,
      String path, long size, long announced) throws IOException {
    return java.util.Arrays.asList(send(port, method, path, size, false),
        send(port, method, path, size, true), expecting(port, method, path, announced));
  }

  private static byte[] head(String method, String path, String framing) {
    return (method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + framing + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
  }

  private static RawHttp.Response answer(Socket socket) throws IOException {
    try {
      return RawHttp.response(new BufferedInputStream(socket.getInputStream()));
    } catch (SocketException e) {
      return null;
    }
  }
}
