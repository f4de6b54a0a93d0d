package dev.sluice.ingress.splice;

import dev.sluice.ingress.edge.UpstreamFailure;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One kept-alive connection to a replica's endpoint. It sends one request at a time (no
 * pipelining) and hands the answer's bytes to its {@link Exchange} as they arrive, counting the
 * body only to know when it ends; between requests it sits in its loop's {@link UpstreamPool}.
 *
 * <p>It goes back to the pool only when the whole request went out and the answer ended exactly
 * at a message boundary with no byte after it, on HTTP/1.1 without {@code Connection: close};
 * any byte arriving while it is idle closes it. So an answer can never be handed to another
 * client's request, whatever a replica's parser made of what it was sent (HAProxy's
 * {@code http-reuse safe} rule for the rest: only a connection that proved idle is reused, and a
 * request that fails on one before any byte came back is resent once on a new connection).
 */
final class UpstreamConnection implements EventLoop.Handler {

  private enum State { NEW, CONNECTING, SENDING, AWAITING_HEAD, STREAMING, IDLE, CLOSED }

  final InetSocketAddress address;
  private final EventLoop loop;
  private final ResponseFraming framing;
  private SocketChannel channel;
  private SelectionKey key;
  private State state = State.NEW;
  private Exchange exchange;
  private ByteBuffer request;
  private boolean reused;
  private boolean anyByte;
  private boolean paused;
  private long deadline;
  /** Bytes came from the replica since the last sweep (cleared there): the answer moves. */
  private boolean moved;
  private long quietSince;

  UpstreamConnection(EventLoop loop, InetSocketAddress address) {
    this.loop = loop;
    this.address = address;
    this.framing = new ResponseFraming(loop.settings.maxHeadBytes());
  }

  boolean open() {
    return state == State.IDLE && channel.isOpen();
  }

  /** Sends {@code bytes} (a whole request) for {@code owner}, which gets the answer. */
  void send(Exchange owner, byte[] bytes) {
    this.exchange = owner;
    this.request = ByteBuffer.wrap(bytes);
    this.anyByte = false;
    framing.reset();
    if (state == State.IDLE) {
      reused = true;
      state = State.SENDING;
      deadline = System.nanoTime() + loop.settings.responseTimeout().toNanos();
      writeRequest();
      return;
    }
    try {
      channel = SocketChannel.open();
      channel.configureBlocking(false);
      channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      boolean connected = channel.connect(address);  // resolved already: no lookup here
      key = channel.register(loop.selector, connected ? 0 : SelectionKey.OP_CONNECT, this);
      if (connected) {
        connected();
      } else {
        state = State.CONNECTING;
        deadline = System.nanoTime() + loop.settings.connectTimeout().toNanos();
      }
    } catch (IOException | RuntimeException e) {
      fail(UpstreamFailure.UNREACHABLE, describe(e));
    }
  }

  private void connected() {
    state = State.SENDING;
    deadline = System.nanoTime() + loop.settings.responseTimeout().toNanos();
    writeRequest();
  }

  @Override
  public void ready(SelectionKey selected) {
    if (state == State.CONNECTING && selected.isConnectable()) {
      try {
        if (channel.finishConnect()) {
          connected();
        }
      } catch (IOException e) {
        fail(UpstreamFailure.UNREACHABLE, describe(e));
      }
      return;
    }
    if (state == State.SENDING && selected.isWritable()) {
      writeRequest();
    }
    if (state != State.CLOSED && selected.isValid() && selected.isReadable()) {
      read();
    }
  }

  private void writeRequest() {
    try {
      channel.write(request);
    } catch (IOException e) {
      fail(UpstreamFailure.FAILED, describe(e));
      return;
    }
    if (request.hasRemaining()) {
      key.interestOps(SelectionKey.OP_WRITE | SelectionKey.OP_READ);
    } else {
      request = null;
      state = State.AWAITING_HEAD;
      key.interestOps(SelectionKey.OP_READ);
    }
  }

  private void read() {
    int read;
    try {
      read = loop.read(channel);
    } catch (IOException e) {
      endOfInput(describe(e));
      return;
    }
    if (read < 0) {
      endOfInput("the replica closed the connection");
    } else if (read > 0) {
      if (state == State.IDLE) {
        close();  // bytes nobody asked for: this connection cannot be trusted any more
        return;
      }
      anyByte = true;
      moved = true;
      process(loop.readBuffer.array(), read);
      if (exchange != null) {
        exchange.endOfRead();
      }
    }
  }

  private void process(byte[] bytes, int length) {
    int position = 0;
    try {
      while (position < length) {
        if (!framing.headComplete()) {
          position += framing.acceptHead(bytes, position, length - position);
          if (!framing.headComplete()) {
            return;
          }
          state = State.STREAMING;
          if (framing.informational()) {
            exchange.onInformational(framing.rawHead());
            framing.reset();
            continue;
          }
          exchange.onHead(framing, position < length);
          if (state == State.CLOSED) {
            return;
          }
        }
        int body = framing.acceptBody(bytes, position, length - position);
        if (body > 0) {
          boolean flowing = exchange.onBody(bytes, position, body);
          position += body;
          if (state == State.CLOSED) {
            return;
          }
          if (!flowing) {
            pause();
          }
        }
        if (framing.bodyDone()) {
          finish(position == length);
          return;
        }
      }
    } catch (MalformedHttpException e) {
      fail(UpstreamFailure.FAILED, "malformed answer: " + e.getMessage());
    }
  }

  private void finish(boolean clean) {
    Exchange done = exchange;
    exchange = null;
    // Reused only after a whole request and a whole answer, nothing more, in either direction.
    boolean reusable = clean && request == null && framing.keepsAlive() && loop.running();
    done.onComplete();
    if (state == State.CLOSED) {
      return;
    }
    if (reusable) {
      state = State.IDLE;
      paused = false;
      deadline = System.nanoTime() + loop.settings.upstreamIdleTimeout().toNanos();
      key.interestOps(SelectionKey.OP_READ);
      loop.pool.release(this);
    } else {
      close();
    }
  }

  private void endOfInput(String why) {
    if (state == State.IDLE) {
      close();
    } else if (state == State.STREAMING && framing.headComplete()
        && framing.body() == ResponseFraming.Body.UNTIL_CLOSE) {
      Exchange done = exchange;
      exchange = null;
      close();
      done.onComplete();
    } else {
      fail(UpstreamFailure.FAILED, why);
    }
  }

  void pause() {
    if (state == State.STREAMING && !paused) {
      paused = true;
      key.interestOps(0);
    }
  }

  void resume() {
    if (paused && state == State.STREAMING) {
      paused = false;
      moved = true;  // the client was the slow side: the replica's silence starts counting now
      key.interestOps(SelectionKey.OP_READ);
    }
  }

  private void fail(UpstreamFailure failure, String detail) {
    Exchange owner = exchange;
    exchange = null;
    boolean stale = failure == UpstreamFailure.FAILED && reused && !anyByte;
    // Refused, or failed before the first byte of the request went out: no replica saw it.
    boolean unsent = !reused && (failure == UpstreamFailure.UNREACHABLE
        || request != null && request.position() == 0);
    close();
    if (owner != null) {
      owner.onUpstreamFailure(failure, detail, stale, unsent);
    }
  }

  @Override
  public void sweep(long now) {
    if (state == State.STREAMING && !paused) {
      if (moved) {
        moved = false;
        quietSince = now;
      } else if (now - quietSince > loop.settings.streamIdleTimeout().toNanos()) {
        Exchange owner = exchange;
        exchange = null;
        close();
        if (owner != null) {
          owner.onUpstreamSilent(loop.settings.streamIdleTimeout().toSeconds());
        }
      }
      return;
    }
    if (now - deadline < 0) {
      return;
    }
    switch (state) {
      case CONNECTING -> fail(UpstreamFailure.UNREACHABLE,
          "connect timed out after " + loop.settings.connectTimeout().toMillis() + " ms");
      case SENDING, AWAITING_HEAD -> fail(UpstreamFailure.TIMED_OUT,
          "no response head within " + loop.settings.responseTimeout().toSeconds() + " s");
      case IDLE -> close();
      default -> { }
    }
  }

  /** Closes the connection; a replica sees its client go away and stops generating. */
  void close() {
    if (state == State.CLOSED) {
      return;
    }
    if (state == State.IDLE) {
      loop.pool.forget(this);
    }
    state = State.CLOSED;
    if (key != null) {
      key.cancel();
    }
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // closed anyway
      }
    }
  }

  @Override
  public void closeNow() {
    Exchange owner = exchange;
    exchange = null;
    close();
    if (owner != null) {
      owner.onClientGone();
    }
  }

  /**
   * The cause alone: the detail reaches the client's error message, and a replica's address is
   * the cluster's business (the node's log line names it, {@link Exchange}).
   */
  private static String describe(Exception e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return message.toLowerCase(java.util.Locale.ROOT);
  }
}
