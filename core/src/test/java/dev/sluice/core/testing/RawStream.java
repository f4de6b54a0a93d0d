package dev.sluice.core.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Test helper: a streaming chat completion on a raw socket, so that a test controls exactly
 * when the client goes away (closing the socket mid-stream).
 */
public final class RawStream implements AutoCloseable {

  private final Socket socket;
  private final BufferedReader reader;
  private String statusLine;
  private final Map<String, String> headers = new HashMap<>();

  private RawStream(Socket socket) throws IOException {
    this.socket = socket;
    this.reader = new BufferedReader(
        new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Sends {@code POST /v1/chat/completions} with {@code body} and extra header lines. */
  public static RawStream open(int port, String body, String... headerLines) throws IOException {
    Socket socket = new Socket("127.0.0.1", port);
    StringBuilder request = new StringBuilder("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
        + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n");
    for (String line : headerLines) {
      request.append(line).append("\r\n");
    }
    request.append("\r\n").append(body);
    socket.getOutputStream().write(request.toString().getBytes(StandardCharsets.UTF_8));
    socket.getOutputStream().flush();
    return new RawStream(socket);
  }

  /** A long streaming chat request body. */
  public static String longChat(int maxTokens) {
    return "{\"messages\":[{\"role\":\"user\",\"content\":\"long\"}],\"max_tokens\":" + maxTokens
        + ",\"stream\":true}";
  }

  /** The response's status line (reads the head on first use). */
  public String statusLine() throws IOException {
    readHead();
    return statusLine;
  }

  /** A response header, by lowercase name (reads the head on first use). */
  public Optional<String> header(String name) throws IOException {
    readHead();
    return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
  }

  /** Reads until {@code count} SSE frames have arrived; returns how many did. */
  public int readFrames(int count) throws IOException {
    readHead();
    int frames = 0;
    String line;
    while (frames < count && (line = reader.readLine()) != null) {
      if (line.startsWith("data: ")) {
        frames++;
      }
    }
    return frames;
  }

  private void readHead() throws IOException {
    if (statusLine != null) {
      return;
    }
    statusLine = reader.readLine();
    String line;
    while ((line = reader.readLine()) != null && !line.isEmpty()) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
            line.substring(colon + 1).trim());
      }
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
