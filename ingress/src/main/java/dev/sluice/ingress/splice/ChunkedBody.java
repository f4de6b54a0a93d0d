package dev.sluice.ingress.splice;

import java.util.Arrays;

/**
 * A chunked request body being decoded as it arrives, bounded by the body limit; the replica gets
 * it with a Content-Length.
 */
final class ChunkedBody {

  /** The decoded body passed the limit. */
  static final class TooLarge extends MalformedHttpException {
    TooLarge(long limit) {
      super("The request body is over the limit of " + limit + " bytes");
    }
  }

  private final long limit;
  private final ChunkedScanner scanner;
  private byte[] data = new byte[1024];
  private int length;
  private int scanned;

  ChunkedBody(long limit) {
    this.limit = limit;
    this.scanner = new ChunkedScanner(this::append);
  }

  private void append(byte[] bytes, int offset, int count) throws TooLarge {
    if (length + (long) count > limit) {
      throw new TooLarge(limit);
    }
    if (length + count > data.length) {
      data = Arrays.copyOf(data, Math.max(data.length * 2, length + count));
    }
    System.arraycopy(bytes, offset, data, length, count);
    length += count;
  }

  /**
   * Decodes {@code bytes[bodyStart + already scanned, end)}; true once the body (and its
   * trailers) is complete.
   */
  boolean scan(byte[] bytes, int bodyStart, int end) throws MalformedHttpException {
    int from = bodyStart + scanned;
    scanned += scanner.scan(bytes, from, end - from);
    if (!scanner.done() && scanned > 2 * limit + 65_536) {
      throw new TooLarge(limit);  // framing overhead (tiny chunks) counts too
    }
    return scanner.done();
  }

  /** Bytes of chunked framing and data the body took on the wire. */
  int framedLength() {
    return scanned;
  }

  byte[] body() {
    return Arrays.copyOf(data, length);
  }
}
