package dev.sluice.ingress.splice;

import dev.sluice.core.http.ApiError;
import java.util.Arrays;

/**
 * The bytes a client sent that are not handled yet, read one request at a time: a strictly
 * parsed head ({@link RequestHead}), then its Content-Length or chunked body. Every byte it
 * holds, and the body it hands out, counts against the connection's share of the
 * {@link BufferBudget}; an idle or streaming connection holds no buffer at all.
 */
final class RequestReader {

  private final int maxHeadBytes;
  private final long maxBodyBytes;
  private final BufferBudget.Account account;
  private byte[] in;
  private int length;
  /** Where the search for the end of the head resumes. */
  private int headScanned;
  /** The body being decoded when the request in hand is chunked. */
  private ChunkedBody chunked;

  RequestReader(int maxHeadBytes, long maxBodyBytes, BufferBudget.Account account) {
    this.maxHeadBytes = maxHeadBytes;
    this.maxBodyBytes = maxBodyBytes;
    this.account = account;
  }

  /** Bytes not handled yet. */
  int length() {
    return length;
  }

  /** Keeps {@code bytes[0, count)}; refused (503) when the budget has no room for them. */
  void append(byte[] bytes, int count) throws MalformedHttpException {
    int needed = length + count;
    if (in == null || needed > in.length) {
      int capacity = Math.max(1024, in == null ? needed : Math.max(in.length * 2, needed));
      account.grow(capacity - (in == null ? 0 : in.length));
      in = in == null ? new byte[capacity] : Arrays.copyOf(in, capacity);
    }
    System.arraycopy(bytes, 0, in, length, count);
    length += count;
  }

  /**
   * The next request's head once it is complete (its bytes are then consumed), else null; a
   * head that cannot be framed safely, or is over the limit (the blank line included, however it
   * arrives: 431), is refused.
   */
  RequestHead head() throws MalformedHttpException {
    int skip = 0;
    while (headScanned == 0 && skip + 1 < length && in[skip] == '\r' && in[skip + 1] == '\n') {
      skip += 2;  // RFC 9112 §2.2: empty lines before a request line are ignored
    }
    consume(skip);
    if (length == 0) {
      return null;
    }
    int end = HttpHead.end(in, headScanned, Math.min(length, maxHeadBytes));
    if (end < 0) {
      if (length >= maxHeadBytes) {
        throw new MalformedHttpException(ApiError.Code.HEADERS_TOO_LARGE,
            "The request head is over " + maxHeadBytes + " bytes");
      }
      headScanned = HttpHead.resumeFrom(length);
      return null;
    }
    RequestHead head = RequestHead.parse(in, end, maxBodyBytes);
    consume(end);
    headScanned = 0;
    if (head.chunked()) {
      chunked = new ChunkedBody(maxBodyBytes, account);
    }
    return head;
  }

  /**
   * The body of {@code head} once it has all arrived (its bytes consumed, its size then held
   * against the budget until the caller returns it), else null.
   */
  byte[] body(RequestHead head) throws MalformedHttpException {
    byte[] body;
    if (chunked != null) {
      consume(chunked.scan(in, 0, length));
      if (!chunked.done()) {
        return null;
      }
      body = chunked.take();
      chunked = null;
    } else if (length < head.contentLength()) {
      return null;
    } else {
      int size = (int) head.contentLength();
      body = size == 0 ? new byte[0] : Arrays.copyOf(in, size);
      consume(size);
    }
    account.grow(body.length);
    return body;
  }

  private void consume(int count) {
    if (count == 0) {
      return;
    }
    int rest = length - count;
    if (rest == 0) {
      freeInput();
      return;
    }
    if (in.length > 64 * 1024 && rest < in.length / 4) {
      byte[] smaller = Arrays.copyOfRange(in, count, count + Math.max(rest, 1024));
      account.shrink(in.length - smaller.length);
      in = smaller;
    } else {
      System.arraycopy(in, count, in, 0, rest);
    }
    length = rest;
  }

  /** Drops every byte held and any body being decoded, returning their share of the budget. */
  void drop() {
    freeInput();
    headScanned = 0;
    if (chunked != null) {
      chunked.discard();
      chunked = null;
    }
  }

  private void freeInput() {
    if (in != null) {
      account.shrink(in.length);
    }
    in = null;
    length = 0;
  }
}
