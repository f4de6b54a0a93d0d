package dev.sluice.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A minimal keep-alive HTTP/1.1 client for load generation: one socket, one request at a time.
 * It finds SSE frame boundaries by scanning bytes and never parses JSON (one small byte scan
 * for {@code "completion_tokens":} in non-streaming answers), so that it costs little per token
 * on the cores it shares with what it measures. Frame arrival times are taken once per socket
 * read.
 */
final class HttpStreamClient implements AutoCloseable {

  private static final byte[] FRAME = "data: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] USAGE = "\"completion_tokens\":".getBytes(StandardCharsets.US_ASCII);

  private final String host;
  private final int port;
  private Socket socket;
  private InputStream in;
  private OutputStream out;
  private final byte[] buffer = new byte[64 * 1024];
  private long[] frameTimes = new long[1024];

  HttpStreamClient(String host, int port) {
    this.host = host;
    this.port = port;
  }

  /**
   * What one exchange measured.
   *
   * @param frames SSE frames received (0 for a non-streaming answer)
   * @param frameTimes arrival time of each frame (valid up to {@code frames}); reused per client
   * @param completionTokens from the usage of a non-streaming answer, else -1
   */
  record Exchange(int status, String reason, String replica, long headersNanos, long endNanos,
      int frames, long[] frameTimes, long completionTokens) {}

  Exchange post(String path, byte[] body, String sessionHeader, String session)
      throws IOException {
    if (socket == null) {
      socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress(host, port), 5_000);
      socket.setSoTimeout(120_000);
      in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
      out = socket.getOutputStream();
    }
    StringBuilder head = new StringBuilder(160).append("POST ").append(path)
        .append(" HTTP/1.1\r\nHost: ").append(host).append(':').append(port)
        .append("\r\nContent-Type: application/json\r\nContent-Length: ").append(body.length)
        .append("\r\n");
    if (session != null) {
      head.append(sessionHeader).append(": ").append(session).append("\r\n");
    }
    out.write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    int status = parseStatus(readLine());
    long headersAt = System.nanoTime();
    long contentLength = -1;
    boolean chunked = false;
    boolean close = false;
    String reason = "";
    String replica = "";
    String line;
    while (!(line = readLine()).isEmpty()) {
      int colon = line.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String name = line.substring(0, colon).trim();
      String value = line.substring(colon + 1).trim();
      if (name.equalsIgnoreCase("content-length")) {
        contentLength = Long.parseLong(value);
      } else if (name.equalsIgnoreCase("transfer-encoding")) {
        chunked = value.equalsIgnoreCase("chunked");
      } else if (name.equalsIgnoreCase("connection")) {
        close = value.equalsIgnoreCase("close");
      } else if (name.equalsIgnoreCase("x-serve-reason")) {
        reason = value;
      } else if (name.equalsIgnoreCase("x-sluice-replica")
          || (replica.isEmpty() && name.equalsIgnoreCase("x-sluice-served-by"))) {
        replica = value;
      }
    }
    BodyScan scan = new BodyScan();
    if (chunked) {
      long size;
      while ((size = Long.parseLong(readLine().split(";")[0].trim(), 16)) > 0) {
        scan.read(size);
        readLine();
      }
      while (!readLine().isEmpty()) {
        // trailers
      }
    } else if (contentLength >= 0) {
      scan.read(contentLength);
    } else {
      close = true;
      scan.readToEnd();
    }
    long end = System.nanoTime();
    if (close) {
      close();
    }
    return new Exchange(status, reason, replica, headersAt, end, scan.frames, frameTimes,
        scan.usage);
  }

  /** Scans body bytes for SSE frame starts (and a usage count) without decoding them. */
  private final class BodyScan {
    int frames;
    int matched;
    int usageMatched;
    long usage = -1;
    boolean readingUsage;

    void read(long length) throws IOException {
      long left = length;
      while (left > 0) {
        int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
        if (n < 0) {
          throw new IOException("connection closed mid-body");
        }
        consume(n, System.nanoTime());
        left -= n;
      }
    }

    void readToEnd() throws IOException {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        consume(n, System.nanoTime());
      }
    }

    private void consume(int n, long now) {
      for (int i = 0; i < n; i++) {
        byte b = buffer[i];
        if (b == FRAME[matched]) {
          if (++matched == FRAME.length) {
            if (frames == frameTimes.length) {
              frameTimes = Arrays.copyOf(frameTimes, frames * 2);
            }
            frameTimes[frames++] = now;
            matched = 0;
          }
        } else {
          matched = b == FRAME[0] ? 1 : 0;
        }
        if (readingUsage) {
          if (b >= '0' && b <= '9') {
            usage = (usage < 0 ? 0 : usage * 10) + (b - '0');
          } else if (usage >= 0) {
            readingUsage = false;
          }
        } else if (b == USAGE[usageMatched]) {
          if (++usageMatched == USAGE.length) {
            readingUsage = true;
            usageMatched = 0;
          }
        } else {
          usageMatched = b == USAGE[0] ? 1 : 0;
        }
      }
    }
  }

  private String readLine() throws IOException {
    StringBuilder line = new StringBuilder(64);
    int b;
    while ((b = in.read()) >= 0) {
      if (b == '\n') {
        int length = line.length();
        return length > 0 && line.charAt(length - 1) == '\r' ? line.substring(0, length - 1)
            : line.toString();
      }
      line.append((char) b);
    }
    throw new IOException("connection closed by " + host + ":" + port);
  }

  private static int parseStatus(String statusLine) throws IOException {
    String[] parts = statusLine.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
      throw new IOException("not an HTTP/1.x status line: " + statusLine);
    }
    return Integer.parseInt(parts[1]);
  }

  @Override
  public void close() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing anyway
      }
      socket = null;
    }
  }
}
