package dev.sluice.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A minimal keep-alive HTTP/1.1 client for load generation: one socket, one request at a time. It
 * finds frame boundaries by scanning bytes and never parses JSON, so that it costs little per
 * token on the cores it shares with what it measures.
 */
final class HttpStreamClient implements AutoCloseable {

  private static final byte[] FRAME = "data: ".getBytes(StandardCharsets.US_ASCII);

  private final String host;
  private final int port;
  private Socket socket;
  private InputStream in;
  private OutputStream out;
  private final byte[] buffer = new byte[64 * 1024];

  HttpStreamClient(String host, int port) {
    this.host = host;
    this.port = port;
  }

  /** What one exchange measured. */
  record Exchange(int status, long firstByteNanos, long endNanos, long frames, long bytes) {}

  Exchange post(String path, byte[] body, long startNanos) throws IOException {
    if (socket == null) {
      socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress(host, port), 5_000);
      socket.setSoTimeout(60_000);
      in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
      out = socket.getOutputStream();
    }
    String head = "POST " + path + " HTTP/1.1\r\nHost: " + host + ":" + port
        + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    int status = parseStatus(readLine());
    long contentLength = -1;
    boolean chunked = false;
    boolean close = false;
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
    return new Exchange(status, scan.firstByte == 0 ? end : scan.firstByte, end, scan.frames,
        scan.bytes);
  }

  /** Scans body bytes for SSE frame starts without copying or decoding them. */
  private final class BodyScan {
    long firstByte;
    long frames;
    long bytes;
    int matched;

    void read(long length) throws IOException {
      long left = length;
      while (left > 0) {
        int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
        if (n < 0) {
          throw new IOException("connection closed mid-body");
        }
        consume(n);
        left -= n;
      }
    }

    void readToEnd() throws IOException {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        consume(n);
      }
    }

    private void consume(int n) {
      if (firstByte == 0 && n > 0) {
        firstByte = System.nanoTime();
      }
      bytes += n;
      for (int i = 0; i < n; i++) {
        byte b = buffer[i];
        if (b == FRAME[matched]) {
          if (++matched == FRAME.length) {
            frames++;
            matched = 0;
          }
        } else {
          matched = b == FRAME[0] ? 1 : 0;
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
