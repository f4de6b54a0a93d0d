package dev.sluice.ingress.splice;

/**
 * Finds where a chunked body ends (RFC 9112 §7.1) without copying it: chunk data is skipped by
 * count, only the size lines, their CRLFs and the trailer section are looked at byte by byte.
 * Given a {@link DataSink}, it also hands over the chunk data (to decode a request body).
 */
final class ChunkedScanner {

  /** Receives the data of each chunk, in order. */
  interface DataSink {
    void data(byte[] bytes, int offset, int length) throws MalformedHttpException;
  }

  private enum State { SIZE, EXTENSION, SIZE_LF, DATA, DATA_CR, DATA_LF, TRAILER, TRAILER_LINE,
    TRAILER_LF, LAST_LF, DONE }

  /** Longest chunk size line we accept (digits), against overflow. */
  private static final int MAX_DIGITS = 15;

  private final DataSink sink;
  private State state = State.SIZE;
  private long size;
  private int digits;

  ChunkedScanner() {
    this(null);
  }

  ChunkedScanner(DataSink sink) {
    this.sink = sink;
  }

  boolean done() {
    return state == State.DONE;
  }

  /**
   * Consumes {@code bytes[offset, offset + length)} up to the end of the body; returns how many
   * bytes belong to the body (less than {@code length} only when the body ended inside).
   */
  int scan(byte[] bytes, int offset, int length) throws MalformedHttpException {
    int i = offset;
    int end = offset + length;
    while (i < end && state != State.DONE) {
      if (state == State.DATA) {
        int skip = (int) Math.min(size, end - i);
        if (sink != null) {
          sink.data(bytes, i, skip);
        }
        i += skip;
        size -= skip;
        if (size == 0) {
          state = State.DATA_CR;
        }
        continue;
      }
      step(bytes[i++]);
    }
    return i - offset;
  }

  private void step(byte b) throws MalformedHttpException {
    switch (state) {
      case SIZE -> {
        int digit = Character.digit(b, 16);
        if (digit >= 0 && digits < MAX_DIGITS) {
          size = size * 16 + digit;
          digits++;
        } else if (digits > 0 && (b == ';' || b == ' ' || b == '\t')) {
          state = State.EXTENSION;
        } else if (digits > 0 && b == '\r') {
          state = State.SIZE_LF;
        } else {
          throw new MalformedHttpException("malformed chunk size");
        }
      }
      case EXTENSION -> {
        if (b == '\r') {
          state = State.SIZE_LF;
        }
      }
      case SIZE_LF -> {
        expect(b, '\n');
        digits = 0;
        state = size == 0 ? State.TRAILER : State.DATA;
      }
      case DATA_CR -> {
        expect(b, '\r');
        state = State.DATA_LF;
      }
      case DATA_LF -> {
        expect(b, '\n');
        state = State.SIZE;
      }
      case TRAILER -> state = b == '\r' ? State.LAST_LF : State.TRAILER_LINE;
      case TRAILER_LINE -> {
        if (b == '\r') {
          state = State.TRAILER_LF;
        }
      }
      case TRAILER_LF -> {
        expect(b, '\n');
        state = State.TRAILER;
      }
      case LAST_LF -> {
        expect(b, '\n');
        state = State.DONE;
      }
      default -> throw new IllegalStateException(state.name());
    }
  }

  private static void expect(byte actual, char expected) throws MalformedHttpException {
    if (actual != expected) {
      throw new MalformedHttpException("malformed chunked framing");
    }
  }
}
