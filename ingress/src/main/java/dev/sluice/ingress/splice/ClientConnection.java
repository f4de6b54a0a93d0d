package dev.sluice.ingress.splice;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.RequestIds;
import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.Answers;
import dev.sluice.ingress.observe.RequestTrace;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's HTTP/1.1 connection: reads one request at a time (a strictly parsed head, then a
 * Content-Length or chunked body), asks the {@link SpliceDispatcher} what to do, and either writes
 * an answer made here or splices a replica's answer through an {@link Exchange}. Pipelined
 * requests wait their turn. What it holds is bounded: its buffers count against the shared
 * {@link BufferBudget}, and a head, a body or an answer that stops moving is cut
 * ({@link #sweep}).
 */
final class ClientConnection implements EventLoop.Handler {

  private enum State { READING, DECIDING, FORWARDING, RESPONDING, LINGERING, CLOSED }

  /**
   * How long a connection closed after its answer keeps reading (and dropping) what the client
   * still sends: closing with unread bytes makes the kernel reset the connection, and a reset
   * can destroy the answer (a 413 or 431, say) before the client reads it.
   */
  private static final long LINGER_NANOS = 2_000_000_000L;

  private static final Logger log = LoggerFactory.getLogger(ClientConnection.class);
  private static final byte[] CONTINUE =
      "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

  final EventLoop loop;
  private final SocketChannel channel;
  private final SpliceDispatcher dispatcher;
  private final Runnable onClose;
  private final BufferBudget.Account account;
  private SelectionKey key;
  private State state = State.READING;
  private final RequestReader reader;
  /** The head of the request whose body is being read. */
  private RequestHead head;
  private boolean continueSent;
  private boolean closeAfterResponse;
  /** The client shut its side (a half-close): answer what is in flight, then close. */
  private boolean inputClosed;
  private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>(2);
  private Exchange exchange;
  /** Budget held for the body of the request in flight. */
  private long bodyHeld;
  private long idleSince = System.nanoTime();
  /** When the current request's first byte, or the end of its head, arrived (-1: none). */
  private long headStarted = -1;
  private long bodyStarted = -1;
  /** Bytes left for the client since the last sweep (cleared there): the answer moves. */
  private boolean wrote;
  private long stalledSince;
  private long lingerUntil;
  /** What is observed of the request in flight (null between requests). */
  RequestTrace trace;
  /** How the request in flight ends if the connection closes under it. */
  private RequestTrace.Outcome closeOutcome = RequestTrace.Outcome.CLIENT_GONE;

  ClientConnection(EventLoop loop, SocketChannel channel, SpliceDispatcher dispatcher,
      Runnable onClose) {
    this.loop = loop;
    this.channel = channel;
    this.dispatcher = dispatcher;
    this.onClose = onClose;
    this.account = loop.budget.account();
    this.reader = new RequestReader(loop.settings.maxHeadBytes(), loop.settings.maxBodyBytes(),
        account);
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
    if (state == State.LINGERING) {
      if (read < 0) {
        close();
      }
      return;  // dropped
    }
    if (read < 0) {
      endOfInput();
      return;
    }
    try {
      reader.append(loop.readBuffer.array(), read);
    } catch (MalformedHttpException e) {
      reject(e);
      return;
    }
    if (state == State.READING) {
      parse();
    } else if (!wantsRead()) {
      interest(false, !out.isEmpty());  // a pipelining flood waits for the answer in flight
    }
  }

  /**
   * The client shut its sending side. A request already complete is still answered (an HTTP
   * half-close is not an abort); a request cut short, or none at all, ends the connection.
   */
  private void endOfInput() {
    if (state == State.READING) {
      gone();
      return;
    }
    inputClosed = true;
    closeAfterResponse = true;
    interest(false, !out.isEmpty());
  }

  private void parse() {
    while (state == State.READING && reader.length() > 0) {
      if (head == null && !readHead()) {
        return;
      }
      byte[] body = readBody();
      if (body == null) {
        return;
      }
      dispatch(body);
    }
  }

  /** Reads the head once it is complete; false while it is not, or if it was refused. */
  private boolean readHead() {
    if (headStarted < 0) {
      headStarted = System.nanoTime();
    }
    try {
      head = reader.head();
    } catch (MalformedHttpException e) {
      reject(e);
      return false;
    }
    if (head == null) {
      if (reader.length() == 0) {
        headStarted = -1;  // only empty lines so far
      }
      return false;
    }
    headStarted = -1;
    trace = loop.stats.observer.begin(head.request().requestId(), head.request().path());
    closeAfterResponse |= head.close();
    Optional<Answer> refused = dispatcher.screen(head.request());
    if (refused.isPresent()) {
      if (head.hasBody()) {
        closeAfterResponse = true;  // the body is never read, so the connection cannot go on
        reader.drop();
      }
      head = null;
      respond(refused.get());
      return false;
    }
    bodyStarted = System.nanoTime();
    return true;
  }

  /** The whole body once it has arrived (then counted against the budget), else null. */
  private byte[] readBody() {
    byte[] body;
    try {
      body = reader.body(head);
    } catch (MalformedHttpException e) {
      reject(e);
      return null;
    }
    if (body == null) {
      sendContinue();
      return null;
    }
    bodyHeld = body.length;
    return body;
  }

  private void dispatch(byte[] body) {
    SpliceRequest request = head.request().withBody(body);
    boolean http10 = head.http10();
    head = null;
    bodyStarted = -1;
    continueSent = false;
    state = State.DECIDING;
    dispatcher.decide(request).whenCompleteAsync((decision, failure) ->
        decided(request, http10, decision, failure, List.of()), loop);
  }

  /**
   * The replicas {@code refused} turned the request away before any byte of it was sent: one
   * more decision, without them ({@link Exchange#MAX_REPLICAS_TRIED} in all, then a refusal is
   * answered).
   */
  void reroute(SpliceRequest request, List<String> refused) {
    exchange = null;
    state = State.DECIDING;
    dispatcher.retry(request, refused).whenCompleteAsync((decision, failure) ->
        decided(request, false, decision, failure, refused), loop);
  }

  private void sendContinue() {
    if (!continueSent && head.expectsContinue()) {
      continueSent = true;
      write(CONTINUE, 0, CONTINUE.length);
    }
  }

  private void decided(SpliceRequest request, boolean http10, Decision decision,
      Throwable failure, List<String> refused) {
    if (state != State.DECIDING || !loop.running()) {
      if (decision instanceof Decision.Forward forward) {
        forward.lease().release();  // the connection was closed while the router was choosing
      }
      return;
    }
    Decision.Forward forwarded = decision instanceof Decision.Forward f ? f : null;
    if (forwarded == null || !forwarded.relayed()) {
      // (A relayed request is routed behind the relayed path's server: see Exchange.onHead.)
      loop.stats.observer.routed(trace, forwarded == null ? null : forwarded.replicaId());
    }
    boolean headRequest = request.method().equals("HEAD");
    if (failure != null) {
      String incident = RequestIds.newId();
      log.error("Request {} failed in the ingress (incident {})", request.requestId(), incident,
          failure);
      respond(Answers.error(ApiError.Code.INTERNAL, "The ingress failed on this request "
          + "(incident " + incident + ")", request.requestId()), !headRequest);
    } else if (decision instanceof Decision.Respond respond) {
      respond(respond.answer(), !headRequest);
    } else {
      Decision.Forward forward = (Decision.Forward) decision;
      if (http10) {
        forward.lease().release();
        respond(Answers.error(ApiError.Code.HTTP_VERSION_NOT_SUPPORTED, "Completions stream "
            + "with chunked transfer coding: send them with HTTP/1.1", request.requestId()));
        return;
      }
      state = State.FORWARDING;
      exchange = new Exchange(this, forward, request, dispatcher, refused);
      exchange.start();
    }
  }

  void closeAfterResponse() {
    closeAfterResponse = true;
  }

  boolean closesAfterResponse() {
    return closeAfterResponse;
  }

  /** The request bytes in flight are no longer needed (sent, answered or dropped). */
  void requestReleased() {
    if (bodyHeld > 0 && state != State.CLOSED) {
      account.shrink(bodyHeld);
    }
    bodyHeld = 0;
  }

  private void respond(Answer answer) {
    respond(answer, true);
  }

  /** Writes an answer made here; {@code withBody} false for the answer to a {@code HEAD}. */
  private void respond(Answer answer, boolean withBody) {
    requestReleased();
    state = State.RESPONDING;
    if (trace != null) {
      loop.stats.observer.head(trace, answer.status(),
          answer.header(dev.sluice.core.http.SluiceHeaders.SERVE_REASON), false);
      if (withBody) {
        trace.body(answer.body(), 0, answer.body().length);
      }
    }
    byte[] bytes = ResponseRenderer.render(answer, closeAfterResponse, withBody);
    write(bytes, 0, bytes.length);
    if (out.isEmpty() && state == State.RESPONDING) {
      answered();
    }
  }

  /** A forwarded request failed before its answer started: the dispatcher's answer instead. */
  void respondFailure(Answer answer) {
    exchange = null;
    respond(answer);
  }

  private void reject(MalformedHttpException e) {
    reject(e.code(), e.code() == ApiError.Code.INVALID_REQUEST
        ? "Malformed HTTP request: " + e.getMessage() : e.getMessage());
  }

  /** A request that cannot be framed safely, or no room for it: answer, then close. */
  private void reject(ApiError.Code code, String message) {
    loop.stats.rejected(code);
    closeAfterResponse = true;
    head = null;
    reader.drop();
    String requestId = RequestIds.newId();
    if (trace == null) {
      trace = loop.stats.observer.begin(requestId, "-");
    }
    respond(Answers.error(code, message, requestId));
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
    loop.stats.observer.ended(trace, RequestTrace.Outcome.COMPLETED);
    trace = null;
    if (closeAfterResponse) {
      closeGracefully();
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
      wrote = true;
    }
    out.add(ByteBuffer.wrap(Arrays.copyOfRange(bytes, offset, offset + length)));
    interest(wantsRead(), true);
    return false;
  }

  private void flush() {
    try {
      while (!out.isEmpty()) {
        ByteBuffer next = out.peek();
        if (channel.write(next) > 0) {
          wrote = true;
        }
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
    return !inputClosed
        && (state == State.READING || reader.length() <= loop.settings.maxHeadBytes());
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
    closeOutcome = RequestTrace.Outcome.ABORTED;
    close();
  }

  /**
   * Ends the connection after its last answer: our side is shut at once, and what the client
   * still sends is read and dropped until it closes too (or {@link #LINGER_NANOS} pass).
   */
  private void closeGracefully() {
    if (inputClosed) {
      close();
      return;
    }
    try {
      channel.shutdownOutput();
    } catch (IOException e) {
      close();
      return;
    }
    state = State.LINGERING;
    reader.drop();
    account.close();
    lingerUntil = System.nanoTime() + LINGER_NANOS;
    interest(true, false);
  }

  private void close() {
    if (state == State.CLOSED) {
      return;
    }
    state = State.CLOSED;
    exchange = null;
    head = null;
    loop.stats.observer.ended(trace, closeOutcome);
    trace = null;
    bodyHeld = 0;
    reader.drop();
    account.close();
    out.clear();
    key.cancel();
    onClose.run();
    try {
      channel.close();
    } catch (IOException ignored) {
      // closed anyway
    }
  }

  /** Deadlines: head and body arrival (408), an idle connection, an answer the client stalls. */
  @Override
  public void sweep(long now) {
    SpliceSettings settings = loop.settings;
    if (state == State.LINGERING) {
      if (now - lingerUntil > 0) {
        close();
      }
      return;
    }
    if (state == State.READING && head == null && headStarted >= 0
        && now - headStarted > settings.headTimeout().toNanos()) {
      timedOut("The request head did not arrive within " + settings.headTimeout().toSeconds()
          + " s");
    } else if (state == State.READING && head != null
        && now - bodyStarted > settings.bodyTimeout().toNanos()) {
      timedOut("The request body did not arrive within " + settings.bodyTimeout().toSeconds()
          + " s");
    } else if (state == State.READING && head == null && reader.length() == 0 && out.isEmpty()
        && now - idleSince > settings.clientIdleTimeout().toNanos()) {
      close();
    } else if (!out.isEmpty()) {
      if (wrote) {
        wrote = false;
        stalledSince = now;
      } else if (now - stalledSince > settings.streamIdleTimeout().toNanos()) {
        loop.stats.streamsCut("client_stalled");
        log.warn("Cut a client connection that took no byte for {} s{}",
            settings.streamIdleTimeout().toSeconds(),
            exchange == null ? "" : " (" + exchange.describe() + ")");
        gone();
      }
    }
  }

  private void timedOut(String message) {
    reject(ApiError.Code.REQUEST_TIMEOUT, message);
  }

  @Override
  public void drain() {
    closeAfterResponse = true;
    if (state == State.LINGERING
        || (state == State.READING && head == null && out.isEmpty())) {
      close();
    }
  }

  @Override
  public void closeNow() {
    gone();
  }
}
