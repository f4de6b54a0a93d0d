package dev.sluice.ingress.splice;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Re-frames a chunked answer on its way to the client: the chunks that arrive in one read leave
 * as one chunk, as HAProxy does. A replica that writes its tokens faster than the client reads
 * them (an engine at full speed: 64 tokens, 64 chunks, in one read) costs the client one chunk
 * to parse instead of 64; chunk boundaries mean nothing in HTTP (RFC 9112 §7.1), and an SSE
 * event is delimited by its blank line, not by its chunk. A read that is one whole chunk, the
 * usual case at real token rates, passes unchanged and uncopied.
 *
 * <p>The bytes it is given have passed the strict scanner of {@link ResponseFraming} already;
 * its own scanner only finds the data again. Extensions are dropped; the trailer section is
 * passed as it came, after a last chunk of ours.
 *
 * <p>Merged chunks are written into a {@link Scratch} shared by the re-chunkers of one event
 * loop, so re-framing allocates nothing per read: an {@link Output} is valid until the next call
 * of any re-chunker on the same scratch, and its user copies what it keeps.
 */
final class Rechunker {

  private static final byte[] CRLF = {'\r', '\n'};
  private static final byte[] LAST_CHUNK = {'0', '\r', '\n'};
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);

  private final ChunkedScanner scanner = ChunkedScanner.ofResponse(this::data);
  private final Scratch scratch;
  private int[] spans = new int[8];
  private int count;
  private int total;
  private boolean lastSent;

  /** A re-chunker with a scratch of its own (tests). */
  Rechunker() {
    this(new Scratch());
  }

  /** A re-chunker that merges into {@code scratch}, the one of the loop that runs it. */
  Rechunker(Scratch scratch) {
    this.scratch = scratch;
  }

  /** A chunked body's bytes as read (any part of it, in order) to the bytes to send on. */
  Output rechunk(byte[] bytes, int offset, int length) throws MalformedHttpException {
    if (lastSent) {
      return new Output(bytes, offset, length);  // the trailer section, as it came
    }
    boolean fromBoundary = scanner.atBoundary();
    count = 0;
    total = 0;
    int used = scanner.scanToTrailer(bytes, offset, length);
    boolean toBoundary = scanner.atBoundary() || scanner.inTrailer();
    if (fromBoundary && toBoundary && count <= 1) {
      lastSent = scanner.inTrailer();
      return new Output(bytes, offset, length);  // whole chunks already: one at most
    }
    int digits = total == 0 ? 0 : (35 - Integer.numberOfLeadingZeros(total)) / 4;
    int rest = scanner.inTrailer() ? length - used : 0;
    int out = (total == 0 ? 0 : digits + 2 + total + 2)
        + (scanner.inTrailer() ? LAST_CHUNK.length + rest : 0);
    byte[] merged = scratch.atLeast(out);
    int at = 0;
    if (total > 0) {
      for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) {
        merged[at++] = HEX[(total >>> shift) & 0xf];
      }
      at = put(merged, at, CRLF, 0, 2);
      for (int i = 0; i < count; i++) {
        at = put(merged, at, bytes, spans[2 * i], spans[2 * i + 1]);
      }
      at = put(merged, at, CRLF, 0, 2);
    }
    if (scanner.inTrailer()) {
      lastSent = true;
      at = put(merged, at, LAST_CHUNK, 0, LAST_CHUNK.length);
      put(merged, at, bytes, offset + used, rest);
    }
    return new Output(merged, 0, out);
  }

  private void data(byte[] bytes, int offset, int length) {
    if (2 * count + 2 > spans.length) {
      spans = Arrays.copyOf(spans, spans.length * 2);
    }
    spans[2 * count] = offset;
    spans[2 * count + 1] = length;
    count++;
    total += length;
  }

  private static int put(byte[] into, int at, byte[] from, int offset, int length) {
    System.arraycopy(from, offset, into, at, length);
    return at + length;
  }

  /** What to send: {@code bytes[offset, offset + length)} (possibly empty). */
  record Output(byte[] bytes, int offset, int length) {}

  /** The buffer one loop's re-chunkers merge into; it grows to the largest merge (~one read). */
  static final class Scratch {
    private byte[] bytes = new byte[4096];

    byte[] atLeast(int size) {
      if (bytes.length < size) {
        bytes = new byte[Math.max(size, 2 * bytes.length)];
      }
      return bytes;
    }
  }
}
