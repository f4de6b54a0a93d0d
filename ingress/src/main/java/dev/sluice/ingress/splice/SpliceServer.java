package dev.sluice.ingress.splice;

import dev.sluice.core.http.ApiError;
import dev.sluice.ingress.observe.IngressObserver;
import dev.sluice.ingress.edge.Answers;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The splice data path's server: HTTP/1.1 on a few selector threads. Each request is decided by
 * the {@link SpliceDispatcher} (the router's pick, or an answer made here) and a forwarded answer
 * is copied from the replica's socket to the client's as bytes: no message per token, no stream
 * stage per chunk, no buffer held by an idle stream. What clients can take is bounded: open
 * connections ({@code max-connections}), buffered request bytes ({@link BufferBudget}) and time
 * (head, body, idle and stream timeouts).
 */
public final class SpliceServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SpliceServer.class);

  private static final long ACCEPT_PAUSE_NANOS = 100_000_000L;
  private static final long LIMIT_LOG_INTERVAL_NANOS = 10_000_000_000L;

  private final ServerSocketChannel server;
  private final List<EventLoop> loops;
  private final SpliceSettings settings;
  private final AtomicInteger connections = new AtomicInteger();
  private final InetSocketAddress localAddress;
  private final BufferBudget budget;
  private final AddressCache addresses;
  private final SpliceStats stats;
  private final byte[] overloaded;
  private int next;
  private SelectionKey acceptKey;
  private long acceptPausedUntil;
  private long limitLoggedAt = System.nanoTime() - LIMIT_LOG_INTERVAL_NANOS;

  private SpliceServer(ServerSocketChannel server, List<EventLoop> loops, SpliceSettings settings,
      BufferBudget budget, AddressCache addresses, SpliceStats stats) throws IOException {
    this.server = server;
    this.loops = loops;
    this.settings = settings;
    this.budget = budget;
    this.addresses = addresses;
    this.stats = stats;
    this.localAddress = (InetSocketAddress) server.getLocalAddress();
    this.overloaded = ResponseRenderer.render(Answers.error(ApiError.Code.OVERLOADED,
        "The ingress has " + settings.maxConnections() + " connections open, its limit "
            + "(sluice.ingress.splice.max-connections): retry shortly", "-"), true, true);
  }

  /**
   * Binds {@code host:port} (port 0 = any free port) and starts serving; {@code onFatal} gets an
   * {@link Error} that stopped a selector thread (the node should end: see {@link EventLoop}).
   */
  public static SpliceServer bind(String host, int port, SpliceSettings settings,
      SpliceDispatcher dispatcher, Consumer<Throwable> onFatal) throws IOException {
    return bind(host, port, settings, dispatcher, onFatal, IngressObserver.off());
  }

  /** The same, every request counted and logged by {@code observer}. */
  public static SpliceServer bind(String host, int port, SpliceSettings settings,
      SpliceDispatcher dispatcher, Consumer<Throwable> onFatal, IngressObserver observer)
      throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open();
    List<EventLoop> loops = new ArrayList<>();
    BufferBudget budget = new BufferBudget(settings.maxBufferedBytes());
    AddressCache addresses = new AddressCache(settings.dnsTtl());
    SpliceStats stats = new SpliceStats(observer);
    try {
      server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      server.bind(new InetSocketAddress(host, port), settings.backlog());
      server.configureBlocking(false);
      for (int i = 0; i < settings.threads(); i++) {
        loops.add(new EventLoop("sluice-splice-" + i, settings, budget, addresses, stats,
            onFatal));
      }
    } catch (IOException | RuntimeException e) {
      server.close();
      addresses.close();
      throw e;
    }
    SpliceServer splice = new SpliceServer(server, loops, settings, budget, addresses, stats);
    EventLoop first = loops.get(0);
    splice.acceptKey = server.register(first.selector, SelectionKey.OP_ACCEPT,
        splice.acceptor(dispatcher));
    loops.forEach(EventLoop::start);
    return splice;
  }

  public InetSocketAddress localAddress() {
    return localAddress;
  }

  /** Client connections open now. */
  public int openConnections() {
    return connections.get();
  }

  /** Request bytes the client connections hold now (counted against the buffer budget). */
  public long bufferedRequestBytes() {
    return budget.used();
  }

  /** What this server refused or cut, by reason. */
  public SpliceStats stats() {
    return stats;
  }

  private EventLoop.Handler acceptor(SpliceDispatcher dispatcher) {
    return new EventLoop.Handler() {
      @Override
      public void ready(SelectionKey key) {
        SocketChannel channel;
        try {
          while ((channel = server.accept()) != null) {
            hand(channel, dispatcher);
          }
        } catch (IOException e) {
          // Too many open files, say: keep serving what is open, and stop accepting for a moment
          // (the pending connection keeps the key ready, so retrying at once would spin).
          log.warn("Accepting a client connection failed: {}", e.toString());
          key.interestOps(0);
          acceptPausedUntil = System.nanoTime() + ACCEPT_PAUSE_NANOS;
        }
      }

      /** Accepting resumes once the pause after a failed accept is over. */
      @Override
      public void sweep(long now) {
        if (acceptKey.isValid() && acceptKey.interestOps() == 0 && now - acceptPausedUntil > 0) {
          acceptKey.interestOps(SelectionKey.OP_ACCEPT);
        }
      }

      @Override
      public void closeNow() {}
    };
  }

  private void hand(SocketChannel channel, SpliceDispatcher dispatcher) throws IOException {
    channel.configureBlocking(false);
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    if (connections.get() >= settings.maxConnections()) {
      refuse(channel);
      return;
    }
    EventLoop loop = loops.get(next);
    next = (next + 1) % loops.size();
    connections.incrementAndGet();
    ClientConnection connection = new ClientConnection(loop, channel, dispatcher,
        connections::decrementAndGet);
    loop.execute(() -> {
      try {
        connection.register();
      } catch (IOException e) {
        connections.decrementAndGet();
        try {
          channel.close();
        } catch (IOException ignored) {
          // closed anyway
        }
      }
    });
  }

  /** Over the connection limit: a 503 the socket buffer surely takes, then close. */
  private void refuse(SocketChannel channel) {
    stats.rejected("connection_limit");
    long now = System.nanoTime();
    if (now - limitLoggedAt > LIMIT_LOG_INTERVAL_NANOS) {
      limitLoggedAt = now;
      log.warn("Refusing client connections: {} are open, the limit "
          + "(sluice.ingress.splice.max-connections)", settings.maxConnections());
    }
    try (channel) {
      channel.write(ByteBuffer.wrap(overloaded));
    } catch (IOException ignored) {
      // the client is gone already
    }
  }

  /** Stops accepting; connections already open go on. */
  public CompletionStage<Void> unbind() {
    EventLoop first = loops.get(0);
    if (!server.isOpen() || !first.running()) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    first.execute(() -> {
      try {
        server.close();
      } catch (IOException ignored) {
        // closed anyway
      }
      done.complete(null);
    });
    return done;
  }

  /**
   * Stops accepting, lets open connections finish their answers for up to {@code deadline},
   * then closes everything (releasing what in-flight requests hold).
   */
  public void terminate(Duration deadline) {
    unbind().toCompletableFuture().orTimeout(1, java.util.concurrent.TimeUnit.SECONDS)
        .exceptionally(e -> null).join();
    loops.forEach(loop -> loop.execute(loop::drainAll));
    long end = System.nanoTime() + deadline.toNanos();
    while (connections.get() > 0 && System.nanoTime() < end) {
      java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
    }
    loops.forEach(EventLoop::stop);
    addresses.close();
    stats.observer.close();
  }

  @Override
  public void close() {
    terminate(Duration.ZERO);
  }
}
