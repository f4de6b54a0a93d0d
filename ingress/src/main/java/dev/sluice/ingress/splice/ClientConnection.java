package dev.sluice.ingress.splice;

import dev.sluice.core.http.ApiError;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's HTTP/1.1 connection: reads one request at a time (head, then a Content-Length
 * body), asks the {@link SpliceDispatcher} what to do, and either writes an answer made here or
 * splices a replica's answer through an {@link Exchange}. Pipelined requests wait their turn.
 */
final class ClientConnection implements EventLoop.Handler {

  private enum State { READING, DECIDING, FORWARDING, RESPONDING, CLOSED }

  private static final Logger log = LoggerFactory.getLogger(ClientConnection.class);
  private static final byte[] CONTINUE =
      "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

  final EventLoop loop;
  private final SocketChannel channel;
  private final SpliceDispatcher dispatcher;
  private final Runnable onClose;
  private SelectionKey key;
  private State state = State.READING;
  private byte[] in;
  private int inLength;
  private HttpHead head;
  private int headEnd;
  private long contentLength;
  /** The body being decoded when the request is chunked. */
  private ChunkedBody chunked;
  private boolean continueSent;
  private boolean closeAfterResponse;
  /** The request in hand came as HTTP/1.0: answered here or refused, then the connection closes. */
  private boolean http10;
  private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>(2);
  private Exchange exchange;
  private long idleSince = System.nanoTime();

  ClientConnection(EventLoop loop, SocketChannel channel, SpliceDispatcher dispatcher,
      Runnable onClose) {
    this.loop = loop;
    this.channel = channel;
    this.dispatcher = dispatcher;
    this.onClose = onClose;
  }

  void register() throws IOException {
    key = channel.register(loop.selector, SelectionKey.OP_READ, this);
  }

  @Override
  public void ready(SelectionKey selected) {
    if (selected.isWritable()) {
      flush();
    }
    if (state != State.CLOSED && selected.isValid() && selected.isReadable()) {
      read();
    }
  }

  private void read() {
    int read;
    try {
      read = loop.read(channel);
    } catch (IOException e) {
      gone();
      return;
    }
    if (read < 0) {
      gone();
      return;
    }
    append(loop.readBuffer.array(), read);
    if (state == State.READING) {
      parse();
    } else if (!wantsRead()) {
      interest(false, !out.isEmpty());  // a pipelining flood waits for the answer in flight
    }
  }

  private void append(byte[] bytes, int length) {
    if (in == null) {
      in = new byte[Math.max(1024, length)];
    } else if (inLength + length > in.length) {
      in = Arrays.copyOf(in, Math.max(in.length * 2, inLength + length));
    }
    System.arraycopy(bytes, 0, in, inLength, length);
    inLength += length;
  }

  private void parse() {
    if (inLength == 0) {
      return;
    }
    if (head == null && !parseHead()) {
      return;
    }
    byte[] body;
    int end;
    if (chunked != null) {
      if (!scanChunks()) {
        return;
      }
      body = chunked.body();
      end = headEnd + chunked.framedLength();
      chunked = null;
    } else if (inLength - headEnd < contentLength) {
      sendContinue();
      return;
    } else {
      body = Arrays.copyOfRange(in, headEnd, headEnd + (int) contentLength);
      end = headEnd + (int) contentLength;
    }
    SpliceRequest request = new SpliceRequest(head.first, head.second, head.fields, body);
    consume(end);
    head = null;
    continueSent = false;
    state = State.DECIDING;
    dispatcher.decide(request).whenCompleteAsync((decision, failure) ->
        decided(request, decision, failure), loop);
  }

  /** Parses the head once it is complete; false while it is not, or if it was refused. */
  private boolean parseHead() {
    int end = HttpHead.end(in, 0, inLength);
    if (end < 0) {
      if (inLength > loop.settings.maxHeadBytes()) {
        reject(ApiError.Code.HEADERS_TOO_LARGE, "The request head is over "
            + loop.settings.maxHeadBytes() + " bytes", null);
      }
      return false;
    }
    if (end > loop.settings.maxHeadBytes()) {
      reject(ApiError.Code.HEADERS_TOO_LARGE, "The request head is over "
          + loop.settings.maxHeadBytes() + " bytes", null);
      return false;
    }
    try {
      head = HttpHead.parse(in, end);
      headEnd = end;
      http10 = head.third.equals("HTTP/1.0");
      if (!http10 && !head.third.equals("HTTP/1.1")) {
        reject(ApiError.Code.HTTP_VERSION_NOT_SUPPORTED,
            "Only HTTP/1.1 (and HTTP/1.0 for answers made here) is served, not " + head.third,
            null);
        return false;
      }
      if (http10) {
        closeAfterResponse = true;  // health checkers (HAProxy's httpchk) speak HTTP/1.0
      }
      String encoding = head.header("transfer-encoding");
      if (encoding != null) {
        if (!encoding.equalsIgnoreCase("chunked") || head.header("content-length") != null) {
          reject(ApiError.Code.INVALID_REQUEST, "Unsupported request framing: Transfer-Encoding "
              + encoding + (head.header("content-length") != null
                  ? " with a Content-Length" : "") + " (expected: chunked, or a Content-Length)",
              null);
          return false;
        }
        chunked = new ChunkedBody(loop.settings.maxBodyBytes());
      }
      long length = head.contentLength();
      contentLength = Math.max(0, length);
      if (contentLength > loop.settings.maxBodyBytes()) {
        reject(ApiError.Code.PAYLOAD_TOO_LARGE, "The request body is " + contentLength
            + " bytes; the limit is " + loop.settings.maxBodyBytes(), null);
        return false;
      }
      if (head.lists("connection", "close")) {
        closeAfterResponse = true;
      }
      return true;
    } catch (MalformedHttpException e) {
      reject(ApiError.Code.INVALID_REQUEST, "Malformed HTTP request: " + e.getMessage(), null);
      return false;
    }
  }

  /** Decodes what arrived of a chunked body; true once it is complete. */
  private boolean scanChunks() {
    try {
      if (chunked.scan(in, headEnd, inLength)) {
        return true;
      }
    } catch (MalformedHttpException e) {
      chunked = null;
      boolean tooLarge = e instanceof ChunkedBody.TooLarge;
      reject(tooLarge ? ApiError.Code.PAYLOAD_TOO_LARGE : ApiError.Code.INVALID_REQUEST,
          tooLarge ? e.getMessage() : "Malformed chunked request body: " + e.getMessage(), null);
      return false;
    }
    sendContinue();
    return false;
  }

  private void sendContinue() {
    if (!continueSent && head.lists("expect", "100-continue")) {
      continueSent = true;
      write(CONTINUE, 0, CONTINUE.length);
    }
  }

  private void consume(int count) {
    int rest = inLength - count;
    if (rest == 0) {
      in = null;  // an idle or streaming connection holds no input buffer
    } else {
      System.arraycopy(in, count, in, 0, rest);
    }
    inLength = rest;
  }

  private void decided(SpliceRequest request, Decision decision, Throwable failure) {
    if (state != State.DECIDING || !loop.running()) {
      if (decision instanceof Decision.Forward forward) {
        forward.lease().release();  // the client left while the router was choosing
      }
      return;
    }
    if (failure != null) {
      respond(HttpResponse.create().withStatus(500).withEntity(HttpEntities.create(
          ContentTypes.APPLICATION_JSON, new ApiError(ApiError.Code.INTERNAL,
              "The ingress failed: " + failure, null).toJson())));
    } else if (decision instanceof Decision.Respond respond) {
      respond(respond.response());
    } else {
      Decision.Forward forward = (Decision.Forward) decision;
      if (http10) {
        forward.lease().release();
        respond(HttpResponse.create().withStatus(505).withEntity(HttpEntities.create(
            ContentTypes.APPLICATION_JSON, new ApiError(ApiError.Code.HTTP_VERSION_NOT_SUPPORTED,
                "Completions stream with chunked transfer coding: send them with HTTP/1.1",
                null).toJson())));
        return;
      }
      state = State.FORWARDING;
      exchange = new Exchange(this, forward, Exchange.upstreamRequest(request, forward));
      exchange.start();
    }
  }

  void closeAfterResponse() {
    closeAfterResponse = true;
  }

  boolean closesAfterResponse() {
    return closeAfterResponse;
  }

  private void respond(HttpResponse response) {
    state = State.RESPONDING;
    byte[] bytes = ResponseRenderer.render(response, closeAfterResponse);
    write(bytes, 0, bytes.length);
    if (out.isEmpty() && state == State.RESPONDING) {
      answered();
    }
  }

  void respondFailure(Decision.Forward target, SpliceDispatcher.UpstreamFailure failure,
      String detail) {
    log.warn("Request {} to replica {} failed before its answer started ({}): {}",
        target.requestId(), target.replicaId(), failure, detail);
    exchange = null;
    respond(dispatcher.upstreamFailed(target, failure, detail));
  }

  /** A request that cannot be framed safely: answer, then close the connection. */
  private void reject(ApiError.Code code, String message, String param) {
    closeAfterResponse = true;
    in = null;
    inLength = 0;
    respond(HttpResponse.create().withStatus(code.status()).withEntity(HttpEntities.create(
        ContentTypes.APPLICATION_JSON, new ApiError(code, message, param).toJson())));
  }

  /** The forwarded answer's last byte was handed over. */
  void forwardDone() {
    if (state != State.FORWARDING) {
      return;
    }
    state = State.RESPONDING;
    if (out.isEmpty()) {
      answered();
    }
  }

  /** The answer in flight has been written out completely. */
  private void answered() {
    exchange = null;
    if (closeAfterResponse) {
      close();
      return;
    }
    state = State.READING;
    idleSince = System.nanoTime();
    interest(true, false);
    parse();
  }

  /**
   * Writes bytes to the client, keeping what the socket does not take; returns whether
   * everything went out (if not, the caller stops reading its source until {@link #flush}).
   */
  boolean write(byte[] bytes, int offset, int length) {
    if (state == State.CLOSED) {
      return true;
    }
    if (out.isEmpty()) {
      ByteBuffer direct = ByteBuffer.wrap(bytes, offset, length);
      try {
        channel.write(direct);
      } catch (IOException e) {
        gone();
        return true;
      }
      if (!direct.hasRemaining()) {
        return true;
      }
      offset = direct.position();
      length = direct.remaining();
    }
    out.add(ByteBuffer.wrap(Arrays.copyOfRange(bytes, offset, offset + length)));
    interest(wantsRead(), true);
    return false;
  }

  private void flush() {
    try {
      while (!out.isEmpty()) {
        ByteBuffer next = out.peek();
        channel.write(next);
        if (next.hasRemaining()) {
          return;
        }
        out.poll();
      }
    } catch (IOException e) {
      gone();
      return;
    }
    interest(wantsRead(), false);
    if (state == State.FORWARDING && exchange != null) {
      exchange.resumeUpstream();
    } else if (state == State.RESPONDING) {
      answered();
    }
  }

  /**
   * Whether to read on: always between requests; while one is answered, only to notice the
   * client leaving and to take a pipelined request up to one head's worth of bytes.
   */
  private boolean wantsRead() {
    return state == State.READING || inLength <= loop.settings.maxHeadBytes();
  }

  private void interest(boolean read, boolean write) {
    if (key.isValid()) {
      key.interestOps((read ? SelectionKey.OP_READ : 0) | (write ? SelectionKey.OP_WRITE : 0));
    }
  }

  /** The client went away: whatever is in flight for it stops. */
  private void gone() {
    Exchange inFlight = exchange;
    close();
    if (inFlight != null) {
      inFlight.onClientGone();
    }
  }

  /** Ends the connection abruptly (an answer broke off midway: the client must see it break). */
  void abort() {
    exchange = null;
    close();
  }

  private void close() {
    if (state == State.CLOSED) {
      return;
    }
    state = State.CLOSED;
    exchange = null;
    in = null;
    out.clear();
    key.cancel();
    onClose.run();
    try {
      channel.close();
    } catch (IOException ignored) {
      // closed anyway
    }
  }

  @Override
  public void sweep(long now) {
    boolean idle = state == State.READING && out.isEmpty();
    if (idle && now - idleSince > loop.settings.clientIdleTimeout().toNanos()) {
      close();
    }
  }

  @Override
  public void drain() {
    closeAfterResponse = true;
    if (state == State.READING && head == null && out.isEmpty()) {
      close();
    }
  }

  @Override
  public void closeNow() {
    gone();
  }

}
