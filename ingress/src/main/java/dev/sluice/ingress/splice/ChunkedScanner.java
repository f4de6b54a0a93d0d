package dev.sluice.ingress.splice;

/**
 * Finds where a chunked body ends (RFC 9112 §7.1) without copying it: chunk data is skipped by
 * count, only the size lines, their CRLFs and the trailer section are looked at byte by byte.
 * Given a {@link DataSink}, it also hands over the chunk data (to decode a request body).
 *
 * <p>Strict, like the head parser: CRLF only, hex digits only, no control byte in a chunk
 * extension or trailer line, extensions at most {@link #MAX_EXTENSION_BYTES} per chunk and the
 * trailer section at most {@link #MAX_TRAILER_BYTES}.
 */
final class ChunkedScanner {

  /** Receives the data of each chunk, in order. */
  interface DataSink {
    void data(byte[] bytes, int offset, int length) throws MalformedHttpException;
  }

  /** Longest chunk extension (everything after the size, before its CRLF). */
  static final int MAX_EXTENSION_BYTES = 1024;
  /** Longest trailer section. */
  static final int MAX_TRAILER_BYTES = 16 * 1024;
  /** Longest chunk size (hex digits), against overflow. */
  private static final int MAX_DIGITS = 15;

  private enum State { SIZE, SIZE_WS, EXTENSION, SIZE_LF, DATA, DATA_CR, DATA_LF, TRAILER,
    TRAILER_LINE, TRAILER_LF, LAST_LF, DONE }

  private final DataSink sink;
  private final boolean obsTextAllowed;
  private State state = State.SIZE;
  private long size;
  private int digits;
  private int extension;
  private int trailer;

  /** A scanner of a response body, whose trailer lines may carry obs-text. */
  ChunkedScanner() {
    this(null, true);
  }

  /** A scanner of a response body whose data goes to {@code sink} (re-chunking). */
  static ChunkedScanner ofResponse(DataSink sink) {
    return new ChunkedScanner(sink, true);
  }

  /** A scanner of a request body, whose data goes to {@code sink}. */
  ChunkedScanner(DataSink sink) {
    this(sink, false);
  }

  private ChunkedScanner(DataSink sink, boolean obsTextAllowed) {
    this.sink = sink;
    this.obsTextAllowed = obsTextAllowed;
  }

  boolean done() {
    return state == State.DONE;
  }

  /** At a chunk boundary: nothing of a size line, its data or its CRLF is pending. */
  boolean atBoundary() {
    return state == State.SIZE && digits == 0;
  }

  /** The last chunk's size line has been read: what follows is the trailer section. */
  boolean inTrailer() {
    return state == State.TRAILER || state == State.TRAILER_LINE
        || state == State.TRAILER_LF || state == State.LAST_LF || state == State.DONE;
  }

  /**
   * Like {@link #scan}, but stops where the trailer section begins (just after the last
   * chunk's size line); returns how many bytes it consumed.
   */
  int scanToTrailer(byte[] bytes, int offset, int length) throws MalformedHttpException {
    int i = offset;
    int end = offset + length;
    while (i < end && !inTrailer()) {
      int line = whole(bytes, i, end);
      if (line == 0) {
        line = scan(bytes, i, state == State.DATA ? (int) Math.min(size, end - i) : 1);
      }
      i += line;
    }
    return i - offset;
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
      int line = whole(bytes, i, end);
      if (line > 0) {
        i += line;
        continue;
      }
      step(bytes[i++]);
    }
    return i - offset;
  }

  /**
   * The common case taken whole: at a chunk's start, a size line of hex digits and its CRLF; after
   * a chunk's data, its CRLF. Returns how many bytes it took (their state change made), or 0 when
   * the bytes are anything else or cut short: the byte-by-byte path then decides, with the same
   * outcome (a size line with an extension, whitespace or too many digits goes that way too).
   */
  private int whole(byte[] bytes, int from, int end) {
    if (state == State.DATA_CR) {
      if (from + 1 < end && bytes[from] == '\r' && bytes[from + 1] == '\n') {
        state = State.SIZE;
        return 2;
      }
      return 0;
    }
    if (state != State.SIZE || digits != 0) {
      return 0;
    }
    int i = from;
    int limit = Math.min(end, from + MAX_DIGITS);
    long value = 0;
    for (int digit; i < limit && (digit = hex(bytes[i])) >= 0; i++) {
      value = value * 16 + digit;
    }
    if (i == from || i + 1 >= end || bytes[i] != '\r' || bytes[i + 1] != '\n') {
      return 0;
    }
    size = value;
    state = value == 0 ? State.TRAILER : State.DATA;
    return i + 2 - from;
  }

  private void step(byte b) throws MalformedHttpException {
    switch (state) {
      case SIZE -> size(b);
      case SIZE_WS -> {
        // RFC 9112 §7.1.1: only BWS may stand between the size and a ';' or the line end
        if (b == ';') {
          state = State.EXTENSION;
        } else if (b == '\r') {
          state = State.SIZE_LF;
        } else if (b != ' ' && b != '\t') {
          throw new MalformedHttpException("malformed chunk size");
        }
        countExtension();
      }
      case EXTENSION -> {
        if (b == '\r') {
          state = State.SIZE_LF;
        } else if (!Tokens.isValueChar(b, false)) {
          throw new MalformedHttpException("a chunk extension has an invalid character "
              + Tokens.describe(b));
        } else {
          countExtension();
        }
      }
      case SIZE_LF -> {
        expect(b, '\n');
        digits = 0;
        extension = 0;
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
      case TRAILER -> {
        countTrailer();
        if (b == '\r') {
          state = State.LAST_LF;
        } else {
          trailerChar(b);
          state = State.TRAILER_LINE;
        }
      }
      case TRAILER_LINE -> {
        countTrailer();
        if (b == '\r') {
          state = State.TRAILER_LF;
        } else {
          trailerChar(b);
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

  private void size(byte b) throws MalformedHttpException {
    int digit = hex(b);
    if (digit >= 0) {
      if (++digits > MAX_DIGITS) {
        throw new MalformedHttpException("a chunk size is over " + MAX_DIGITS + " hex digits");
      }
      size = size * 16 + digit;
    } else if (digits > 0 && b == ';') {
      extension = 1;
      state = State.EXTENSION;
    } else if (digits > 0 && (b == ' ' || b == '\t')) {
      extension = 1;
      state = State.SIZE_WS;
    } else if (digits > 0 && b == '\r') {
      state = State.SIZE_LF;
    } else {
      throw new MalformedHttpException("malformed chunk size");
    }
  }

  private void countExtension() throws MalformedHttpException {
    if (++extension > MAX_EXTENSION_BYTES) {
      throw new MalformedHttpException("a chunk extension is over " + MAX_EXTENSION_BYTES
          + " bytes");
    }
  }

  private void countTrailer() throws MalformedHttpException {
    if (++trailer > MAX_TRAILER_BYTES) {
      throw new MalformedHttpException("the trailer section is over " + MAX_TRAILER_BYTES
          + " bytes");
    }
  }

  private void trailerChar(byte b) throws MalformedHttpException {
    if (!Tokens.isValueChar(b, obsTextAllowed)) {
      throw new MalformedHttpException("a trailer line has an invalid character "
          + Tokens.describe(b));
    }
  }

  private static int hex(byte b) {
    if (b >= '0' && b <= '9') {
      return b - '0';
    }
    if (b >= 'a' && b <= 'f') {
      return b - 'a' + 10;
    }
    if (b >= 'A' && b <= 'F') {
      return b - 'A' + 10;
    }
    return -1;
  }

  private static void expect(byte actual, char expected) throws MalformedHttpException {
    if (actual != expected) {
      throw new MalformedHttpException("malformed chunked framing (expected: CRLF)");
    }
  }
}
