package dev.sluice.ingress.splice;

import dev.sluice.core.testing.RawHttp;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in replica endpoint on loopback whose answers are scripted byte by byte, so that the
 * splice's framing, reuse and failure handling can be driven exactly.
 */
final class ScriptedUpstream implements AutoCloseable {

  /** Answers one request; return false to stop serving the connection. */
  interface Script {
    boolean answer(String request, Map<String, String> headers, OutputStream out, Socket socket)
        throws IOException;
  }

  final AtomicInteger connections = new AtomicInteger();
  final BlockingQueue<String> requests = new LinkedBlockingQueue<>();
  final BlockingQueue<String> events = new LinkedBlockingQueue<>();
  volatile Script script = ScriptedUpstream::sse;
  private final ServerSocket server;

  ScriptedUpstream() throws IOException {
    server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "scripted-upstream");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        connections.incrementAndGet();
        Thread serving = new Thread(() -> serve(socket), "scripted-connection");
        serving.setDaemon(true);
        serving.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      InputStream in = new BufferedInputStream(socket.getInputStream());
      OutputStream out = socket.getOutputStream();
      while (true) {
        String start = RawHttp.line(in);
        if (start == null) {
          events.add("eof");
          return;
        }
        Map<String, String> headers = RawHttp.fields(in);
        String body = RawHttp.body(in, headers);
        String request = start + "\n" + headers + "\n" + body;
        requests.add(request);
        if (!script.answer(request, headers, out, socket)) {
          return;
        }
      }
    } catch (IOException e) {
      events.add("closed: " + e.getMessage());
    }
  }

  /** An SSE answer of three events, chunked, kept alive. */
  static boolean sse(String request, Map<String, String> headers, OutputStream out, Socket socket)
      throws IOException {
    out.write(ascii("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        + "transfer-encoding: chunked\r\nx-request-id: from-upstream\r\n\r\n"));
    for (int i = 0; i < 3; i++) {
      out.write(chunk("data: token-" + i + "\n\n"));
    }
    out.write(chunk("data: [DONE]\n\n"));
    out.write(ascii("0\r\n\r\n"));
    out.flush();
    return true;
  }

  static byte[] chunk(String data) {
    byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
    return ascii(Integer.toHexString(bytes.length) + "\r\n" + data + "\r\n");
  }

  static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
