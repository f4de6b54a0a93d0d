package dev.sluice.deploy;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A minimal HTTP/2 client over cleartext with prior knowledge (the JDK's client only upgrades):
 * one POST on stream 1 with no Content-Length, its body, then a trailer section. It reads frames
 * until the answer's HEADERS and tells the status apart by its HPACK static-table index, which
 * is how HAProxy encodes 200 and 400. Headers are sent as literals without Huffman coding.
 */
final class H2Probe {

  private static final byte[] PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final int DATA = 0x0;
  private static final int HEADERS = 0x1;
  private static final int SETTINGS = 0x4;
  private static final int END_STREAM = 0x1;
  private static final int END_HEADERS = 0x4;

  private H2Probe() {}

  /**
   * The answer's status: 200 or 400 (others as -1), or 0 if none came within {@code timeoutMs}.
   */
  static int post(int port, String path, String body, String trailerName, String trailerValue,
      int timeoutMs) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(timeoutMs);
      OutputStream out = socket.getOutputStream();
      out.write(PREFACE);
      frame(out, SETTINGS, 0, 0, new byte[0]);
      frame(out, HEADERS, END_HEADERS, 1, block(":method", "POST", ":scheme", "http",
          ":authority", "x", ":path", path, "content-type", "application/json"));
      frame(out, DATA, 0, 1, body.getBytes(StandardCharsets.UTF_8));
      frame(out, HEADERS, END_HEADERS | END_STREAM, 1, block(trailerName, trailerValue));
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      try {
        while (true) {
          int length = in.readUnsignedShort() << 8 | in.readUnsignedByte();
          int type = in.readUnsignedByte();
          in.readUnsignedByte();
          int stream = in.readInt() & 0x7fffffff;
          byte[] payload = in.readNBytes(length);
          if (type == HEADERS && stream == 1) {
            return switch (payload[0] & 0xff) {
              case 0x88 -> 200;
              case 0x8c -> 400;
              default -> -1;
            };
          }
        }
      } catch (SocketTimeoutException e) {
        return 0;
      }
    }
  }

  private static void frame(OutputStream out, int type, int flags, int stream, byte[] payload)
      throws IOException {
    out.write(new byte[] {(byte) (payload.length >> 16), (byte) (payload.length >> 8),
        (byte) payload.length, (byte) type, (byte) flags, (byte) (stream >> 24),
        (byte) (stream >> 16), (byte) (stream >> 8), (byte) stream});
    out.write(payload);
  }

  /** Literal header fields without indexing, new names, no Huffman coding (RFC 7541 6.2.2). */
  private static byte[] block(String... namesAndValues) {
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      block.write(0x00);
      string(block, namesAndValues[i]);
      string(block, namesAndValues[i + 1]);
    }
    return block.toByteArray();
  }

  private static void string(ByteArrayOutputStream block, String value) {
    byte[] bytes = value.getBytes(StandardCharsets.ISO_8859_1);
    if (bytes.length >= 127) {
      throw new IllegalArgumentException("longer than this probe encodes: " + value);
    }
    block.write(bytes.length);
    block.writeBytes(bytes);
  }
}
