package dev.sluice.ingress.observe;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * What the ingress saw of one request, filled in as it goes (on one thread at a time: the
 * selector thread of its connection, or the stream stage of the relayed path) and handed to the
 * {@link IngressObserver} once, when it ends: route, replica, status and reason, time to the
 * router's pick, time to the first byte of the answer's body, bytes and tokens delivered.
 */
public final class RequestTrace {

  /** How a request ended. */
  public enum Outcome {
    /** The whole answer reached the client. */
    COMPLETED,
    /** The answer broke off midway (the replica failed, or the stream was cut). */
    ABORTED,
    /** The client went away before the end of its answer. */
    CLIENT_GONE;

    final String label = name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Bytes kept from the previous read, so that a field split between reads is still found: the
   * two last bytes (a colon there is checked with the next read) and the key before them.
   */
  private static final int CARRY = 12;
  /** Eight bytes at a time, in native order (SWAR: a colon among them is found in one test). */
  private static final VarHandle WORDS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long COLONS = 0x3a3a3a3a3a3a3a3aL;
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;
  private static final byte[] CONTENT = "\"content\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TEXT = "\"text\"".getBytes(StandardCharsets.US_ASCII);

  final String requestId;
  final String route;
  final long startNanos;
  long routedNanos = -1;
  long firstByteNanos = -1;
  /** When the first token of a streamed answer went out (-1: none yet, or not streamed). */
  long firstTokenNanos = -1;
  String replica;
  int status;
  String reason;
  boolean streaming;
  long bytes;
  long tokens;
  /** The last bytes of the previous read (the first {@code carried} of {@link #carry}). */
  private byte[] carry;
  private int carried;
  private boolean ended;

  RequestTrace(String requestId, String route, long startNanos) {
    this.requestId = requestId;
    this.route = route;
    this.startNanos = startNanos;
  }

  /** The router picked (or refused) now. */
  public void routed(String replicaId) {
    routedNanos = System.nanoTime();
    replica = replicaId;
  }

  /** The answer's head: its status, its {@code X-Serve-Reason} (or null), whether it is SSE. */
  public void head(int statusCode, String serveReason, boolean eventStream) {
    status = statusCode;
    reason = serveReason;
    streaming = eventStream;
  }

  /**
   * Body bytes handed to the client. A streamed answer counts as tokens its chunks' non-empty
   * text fields ({@code "content":"…"} or {@code "text":"…"}): one token per chunk, as vLLM and
   * the simulated engine stream them (the role chunk's empty content, the finish and usage chunks
   * and {@code [DONE]} are not tokens).
   */
  public void body(byte[] data, int offset, int length) {
    if (length <= 0) {
      return;
    }
    if (firstByteNanos < 0) {
      firstByteNanos = System.nanoTime();
    }
    bytes += length;
    if (streaming) {
      countTokens(data, offset, length);
      if (firstTokenNanos < 0 && tokens > 0) {
        firstTokenNanos = System.nanoTime();
      }
    }
  }

  /**
   * Finds {@code "content":"X} and {@code "text":"X} with X not a quote. The scan looks for
   * colons sixteen bytes at a time; the rest is checked at the few colons. A colon within the first
   * {@link #CARRY} bytes of a read is checked against the previous read's last bytes; one in the
   * last two bytes is checked with the next read.
   */
  private void countTokens(byte[] data, int offset, int length) {
    int end = offset + length;
    if (carry == null) {
      carry = new byte[2 * CARRY + 2];
    }
    // The seam: the previous read's tail joined with this read's head.
    int head = Math.min(length, CARRY + 2);
    System.arraycopy(data, offset, carry, carried, head);
    int joined = carried + head;
    for (int p = Math.max(0, carried - 2); p < carried + CARRY && p + 2 < joined; p++) {
      if (isTextField(carry, 0, p)) {
        tokens++;
      }
    }
    int i = offset + CARRY;
    int last = end - 2;  // a colon before this is checked now
    for (; i + 16 <= last; i += 16) {
      long a = (long) WORDS.get(data, i) ^ COLONS;  // a zero byte where a colon was
      long b = (long) WORDS.get(data, i + 8) ^ COLONS;
      long colonsA = (a - ONES) & ~a & HIGHS;       // may also flag a byte above a colon
      long colonsB = (b - ONES) & ~b & HIGHS;
      if ((colonsA | colonsB) != 0) {
        tokens += textFields(data, offset, i, colonsA) + textFields(data, offset, i + 8, colonsB);
      }
    }
    for (; i + 8 <= last; i += 8) {
      long x = (long) WORDS.get(data, i) ^ COLONS;
      tokens += textFields(data, offset, i, (x - ONES) & ~x & HIGHS);
    }
    for (; i < last; i++) {
      if (data[i] == ':' && isTextField(data, offset, i)) {
        tokens++;
      }
    }
    // Keep the last CARRY bytes of everything so far for the next seam.
    if (joined <= CARRY) {
      carried = joined;
    } else if (length >= CARRY) {
      System.arraycopy(data, end - CARRY, carry, 0, CARRY);
      carried = CARRY;
    } else {
      System.arraycopy(carry, joined - CARRY, carry, 0, CARRY);
      carried = CARRY;
    }
  }

  /** How many of the flagged bytes of the word at {@code at} are colons of text fields. */
  private static int textFields(byte[] data, int offset, int at, long flagged) {
    int found = 0;
    while (flagged != 0) {
      if (isTextField(data, offset, at + (Long.numberOfTrailingZeros(flagged) >>> 3))) {
        found++;
      }
      flagged &= flagged - 1;
    }
    return found;
  }

  /** Whether the colon at {@code i} ends a "content" or "text" key whose value is not empty. */
  private static boolean isTextField(byte[] b, int start, int i) {
    // Both keys end in t": most colons fail the first test (of a chunk's keys only "object"
    // also ends so), and the rest is compared only then.
    if (i - 2 < start || b[i - 2] != 't' || b[i - 1] != '"' || b[i] != ':' || b[i + 1] != '"'
        || b[i + 2] == '"') {
      return false;
    }
    return endsWith(b, start, i, CONTENT) || endsWith(b, start, i, TEXT);
  }

  private static boolean endsWith(byte[] b, int start, int end, byte[] key) {
    int from = end - key.length;
    if (from < start) {
      return false;
    }
    for (int k = 0; k < key.length; k++) {
      if (b[from + k] != key[k]) {
        return false;
      }
    }
    return true;
  }

  /** Marks the trace ended; true only the first time. */
  boolean end() {
    if (ended) {
      return false;
    }
    ended = true;
    return true;
  }

  /**
   * When the client got its first token: for a streamed answer the first chunk with text (the
   * role chunk a chat stream opens with is not a token), else the first byte of the body.
   */
  long firstTokenAt() {
    return streaming ? firstTokenNanos : firstByteNanos;
  }

  public long tokens() {
    return tokens;
  }

  public long bytes() {
    return bytes;
  }
}
