package dev.sluice.ingress.splice;

import dev.sluice.core.http.ApiError;
import java.util.Arrays;

/**
 * A chunked request body being decoded as it arrives, bounded by the body limit and the buffer
 * budget; the replica gets it with a Content-Length. The framing is consumed as it is scanned,
 * so only the decoded data is held.
 */
final class ChunkedBody {

  private final long limit;
  private final BufferBudget.Account account;
  private final ChunkedScanner scanner;
  private byte[] data = new byte[0];
  private int length;
  private long wire;

  ChunkedBody(long limit, BufferBudget.Account account) {
    this.limit = limit;
    this.account = account;
    this.scanner = new ChunkedScanner(this::append);
  }

  private void append(byte[] bytes, int offset, int count) throws MalformedHttpException {
    if (length + (long) count > limit) {
      throw tooLarge();
    }
    if (length + count > data.length) {
      int capacity = (int) Math.min(limit, Math.max(Math.max(1024, data.length * 2L),
          length + (long) count));
      account.grow(capacity - data.length);
      data = Arrays.copyOf(data, capacity);
    }
    System.arraycopy(bytes, offset, data, length, count);
    length += count;
  }

  private MalformedHttpException tooLarge() {
    return new MalformedHttpException(ApiError.Code.PAYLOAD_TOO_LARGE,
        "The request body is over the limit of " + limit + " bytes");
  }

  /**
   * Decodes {@code bytes[from, end)}; returns how many bytes belong to the body (the caller drops
   * them). Done once {@link #done()}.
   */
  int scan(byte[] bytes, int from, int end) throws MalformedHttpException {
    int taken = scanner.scan(bytes, from, end - from);
    wire += taken;
    if (!scanner.done() && wire > 2 * limit + 65_536) {
      throw tooLarge();  // framing overhead (tiny chunks) counts too
    }
    return taken;
  }

  boolean done() {
    return scanner.done();
  }

  /** The decoded body; its buffer's share of the budget is returned. */
  byte[] take() {
    byte[] body = Arrays.copyOf(data, length);
    discard();
    return body;
  }

  /** Drops what was decoded, returning its share of the budget. */
  void discard() {
    account.shrink(data.length);
    data = new byte[0];
    length = 0;
  }
}
