package dev.sluice.ingress.splice;

import java.util.Arrays;
import java.util.List;

/**
 * Where one upstream response begins and ends on a kept-alive connection: the head is collected
 * and parsed strictly (it is small and gets two headers added), the body is only counted, by
 * Content-Length or by its chunked framing, so the connection can be reused the moment the last
 * byte has passed, and only then.
 */
final class ResponseFraming {

  enum Body { NONE, LENGTH, CHUNKED, UNTIL_CLOSE }

  private final int maxHeadBytes;
  private byte[] headBytes;
  private int headLength;
  private int scanned;
  private HttpHead head;
  private int headEnd;
  private int status;
  private Body body;
  private long remaining;
  private ChunkedScanner chunks;

  /** {@code maxHeadBytes} bounds a head, its blank line included, however it arrives. */
  ResponseFraming(int maxHeadBytes) {
    this.maxHeadBytes = maxHeadBytes;
    this.headBytes = new byte[Math.min(512, maxHeadBytes)];
  }

  boolean headComplete() {
    return head != null;
  }

  HttpHead head() {
    return head;
  }

  int status() {
    return status;
  }

  Body body() {
    return body;
  }

  /**
   * Collects head bytes from {@code bytes[offset, offset + length)}; returns how many were taken
   * (all of them while the head is incomplete).
   */
  int acceptHead(byte[] bytes, int offset, int length) throws MalformedHttpException {
    // Only the head's own bytes are kept: the body that came with it is not copied here.
    int part = headPart(bytes, offset, length);
    if (headLength + part > headBytes.length) {
      int wanted = Math.min(Math.max(headBytes.length * 2, headLength + part), maxHeadBytes);
      headBytes = Arrays.copyOf(headBytes, wanted);
    }
    int taken = Math.min(part, headBytes.length - headLength);
    System.arraycopy(bytes, offset, headBytes, headLength, taken);
    headLength += taken;
    int end = HttpHead.end(headBytes, scanned, headLength);
    if (end < 0) {
      if (headLength >= maxHeadBytes) {
        throw new MalformedHttpException("response head over " + maxHeadBytes + " bytes");
      }
      scanned = HttpHead.resumeFrom(headLength);
      return taken;
    }
    head = HttpHead.parseResponse(headBytes, end);
    status = Integer.parseInt(head.second);
    headEnd = end;
    if (status < 100) {
      throw new MalformedHttpException("status " + head.second + " (expected: 100 to 999)");
    }
    if (status == 101) {
      throw new MalformedHttpException("a protocol switch (101) is not proxied");
    }
    List<String> codings = head.listElements("transfer-encoding");
    if (head.has("transfer-encoding") && head.has("content-length")) {
      throw new MalformedHttpException("both Transfer-Encoding and Content-Length");
    }
    if (status < 200 || status == 204 || status == 304) {
      body = Body.NONE;
    } else if (!codings.isEmpty() && codings.get(codings.size() - 1).equals("chunked")) {
      body = Body.CHUNKED;
      chunks = new ChunkedScanner();
    } else if (head.has("transfer-encoding")) {
      body = Body.UNTIL_CLOSE;
    } else if (head.contentLength() >= 0) {
      body = Body.LENGTH;
      remaining = head.contentLength();
    } else {
      body = Body.UNTIL_CLOSE;
    }
    return taken - (headLength - end);
  }

  /**
   * How many of {@code bytes[offset, offset + length)} belong to the head: up to and including
   * the first CRLF CRLF (counting the bytes kept from earlier reads), or all of them. Only a
   * candidate: {@link HttpHead#end} checks the kept bytes strictly.
   */
  private int headPart(byte[] bytes, int offset, int length) {
    for (int i = 0; i < length; i++) {
      if (bytes[offset + i] == '\n' && at(bytes, offset, i - 1) == '\r'
          && at(bytes, offset, i - 2) == '\n' && at(bytes, offset, i - 3) == '\r') {
        return i + 1;
      }
    }
    return length;
  }

  /** Byte {@code i} of the new bytes; a negative {@code i} reaches back into the kept head. */
  private int at(byte[] bytes, int offset, int i) {
    if (i >= 0) {
      return bytes[offset + i];
    }
    int kept = headLength + i;
    return kept >= 0 ? headBytes[kept] : -1;
  }

  /** How much the head buffer holds now (tests: a body is never copied into it). */
  int headCapacity() {
    return headBytes.length;
  }

  /** The head as received (status line, fields, blank line). */
  byte[] rawHead() {
    return Arrays.copyOf(headBytes, headEnd);
  }

  /** Whether this head was informational (1xx): another head follows. */
  boolean informational() {
    return status < 200;
  }

  /**
   * Whether the connection may carry another request after this answer: HTTP/1.1, not closing,
   * and framed by its own length (an answer delimited by the close cannot be followed).
   */
  boolean keepsAlive() {
    return head.first.equals("HTTP/1.1") && !head.lists("connection", "close")
        && body != Body.UNTIL_CLOSE;
  }

  /** Starts over for the next response on the same connection. */
  void reset() {
    headLength = 0;
    headEnd = 0;
    scanned = 0;
    head = null;
    status = 0;
    body = null;
    chunks = null;
    remaining = 0;
    if (headBytes.length > 512) {
      headBytes = new byte[Math.min(512, maxHeadBytes)];
    }
  }

  /** Counts body bytes; returns how many of {@code length} belong to this response's body. */
  int acceptBody(byte[] bytes, int offset, int length) throws MalformedHttpException {
    switch (body) {
      case NONE:
        return 0;
      case LENGTH:
        int taken = (int) Math.min(remaining, length);
        remaining -= taken;
        return taken;
      case CHUNKED:
        return chunks.scan(bytes, offset, length);
      default:
        return length;
    }
  }

  /** Whether the body is complete (never, for a body delimited by the connection closing). */
  boolean bodyDone() {
    return switch (body) {
      case NONE -> true;
      case LENGTH -> remaining == 0;
      case CHUNKED -> chunks.done();
      case UNTIL_CLOSE -> false;
    };
  }
}
