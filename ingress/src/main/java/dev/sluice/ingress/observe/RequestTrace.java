package dev.sluice.ingress.observe;

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

  /** {@code \ndata: {}: an SSE event carrying a JSON chunk (never {@code [DONE]}). */
  private static final byte[] EVENT = {'\n', 'd', 'a', 't', 'a', ':', ' ', '{'};
  /** The fields a completion chunk carries its text in (chat, then completions). */
  private static final byte[] CONTENT = "content\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TEXT = "text\":\"".getBytes(StandardCharsets.US_ASCII);

  final String requestId;
  final String route;
  final long startNanos;
  long routedNanos = -1;
  long firstByteNanos = -1;
  String replica;
  int status;
  String reason;
  boolean streaming;
  long bytes;
  long tokens;
  /** How much of {@link #EVENT} the bytes so far end with (the body starts as after a newline). */
  private int event = 1;
  /** Inside an event not counted yet: how much of each text field's name the bytes end with. */
  private boolean inEvent;
  private int content;
  private int text;
  /** A text field's opening quote was the last byte: the next byte says whether it is empty. */
  private boolean valueNext;
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
   * Body bytes handed to the client. A streamed answer counts as tokens its SSE events whose
   * chunk carries non-empty text ({@code "content":"…"} or {@code "text":"…"}): one token per
   * chunk, as vLLM and the simulated engine stream them (the role, finish and usage chunks and
   * {@code [DONE]} are not tokens).
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
    }
  }

  private void countTokens(byte[] data, int offset, int length) {
    for (int i = offset, end = offset + length; i < end; i++) {
      byte b = data[i];
      if (valueNext) {
        valueNext = false;
        if (b != '"') {
          tokens++;
          inEvent = false;
        }
      }
      event = b == EVENT[event] ? event + 1 : (b == '\n' ? 1 : 0);
      if (event == EVENT.length) {
        event = 0;
        inEvent = true;
        content = 0;
        text = 0;
        continue;
      }
      if (inEvent) {
        content = b == CONTENT[content] ? content + 1 : (b == CONTENT[0] ? 1 : 0);
        text = b == TEXT[text] ? text + 1 : (b == TEXT[0] ? 1 : 0);
        if (content == CONTENT.length || text == TEXT.length) {
          content = 0;
          text = 0;
          valueNext = true;
        }
      }
    }
  }

  /** Marks the trace ended; true only the first time. */
  boolean end() {
    if (ended) {
      return false;
    }
    ended = true;
    return true;
  }

  public String requestId() {
    return requestId;
  }

  public int status() {
    return status;
  }

  public long tokens() {
    return tokens;
  }

  public long bytes() {
    return bytes;
  }
}
