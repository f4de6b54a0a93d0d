package dev.sluice.ingress.splice;

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
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The splice data path's server: HTTP/1.1 on a few selector threads. Each request is decided by
 * the {@link SpliceDispatcher} (the router's pick, or an answer made here) and a forwarded answer
 * is copied from the replica's socket to the client's as bytes: no message per token, no stream
 * stage per chunk, no buffer held by an idle stream.
 */
public final class SpliceServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SpliceServer.class);

  private final ServerSocketChannel server;
  private final List<EventLoop> loops;
  private final AtomicInteger connections = new AtomicInteger();
  private final InetSocketAddress localAddress;
  private int next;

  private SpliceServer(ServerSocketChannel server, List<EventLoop> loops) throws IOException {
    this.server = server;
    this.loops = loops;
    this.localAddress = (InetSocketAddress) server.getLocalAddress();
  }

  /** Binds {@code host:port} (port 0 = any free port) and starts serving. */
  public static SpliceServer bind(String host, int port, SpliceSettings settings,
      SpliceDispatcher dispatcher) throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open();
    List<EventLoop> loops = new ArrayList<>();
    try {
      server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      server.bind(new InetSocketAddress(host, port), settings.backlog());
      server.configureBlocking(false);
      for (int i = 0; i < settings.threads(); i++) {
        loops.add(new EventLoop("sluice-splice-" + i, settings));
      }
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
    SpliceServer splice = new SpliceServer(server, loops);
    EventLoop first = loops.get(0);
    server.register(first.selector, SelectionKey.OP_ACCEPT, splice.acceptor(dispatcher));
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
          // too many open files, say: keep serving what is open, retry on the next accept
          log.warn("Accepting a client connection failed: {}", e.toString());
        }
      }

      @Override
      public void sweep(long now) {}

      @Override
      public void closeNow() {}
    };
  }

  private void hand(SocketChannel channel, SpliceDispatcher dispatcher) throws IOException {
    channel.configureBlocking(false);
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
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
  }

  @Override
  public void close() {
    terminate(Duration.ZERO);
  }
}
