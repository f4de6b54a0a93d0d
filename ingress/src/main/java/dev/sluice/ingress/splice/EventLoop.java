package dev.sluice.ingress.splice;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One selector thread. It owns its connections (a client connection and the upstream connection
 * serving it live on the same loop), so connection state needs no locks; other threads hand it
 * work through {@link #execute}. Reads go through one buffer per loop, so an idle stream holds no
 * buffer at all.
 *
 * <p>A bug in one connection's handling (a {@link RuntimeException}) closes that connection only.
 * An {@link Error} (out of memory, say) leaves the loop's state unknown: the loop closes its
 * connections, stops, and hands the error to the server's fatal handler, which by default ends
 * the node, so a dead port never hides behind a live node.
 */
final class EventLoop implements Executor, Runnable {

  private static final Logger log = LoggerFactory.getLogger(EventLoop.class);
  private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
  /** Tasks run between two polls of the selector; the rest run after the next poll. */
  private static final int TASKS_PER_TURN = 256;

  /** Something registered with the selector. */
  interface Handler {
    void ready(SelectionKey key);

    /** Closes the connection if a deadline passed; {@code now} is {@link System#nanoTime}. */
    void sweep(long now);

    /** The loop is stopping: close, and release whatever the connection holds. */
    void closeNow();

    /** The server is shutting down: close when no answer is in flight. */
    default void drain() {}
  }

  final Selector selector;
  final ByteBuffer readBuffer = ByteBuffer.allocate(64 * 1024);
  /** Where this loop's streams re-frame their chunks (one stream's read at a time). */
  final Rechunker.Scratch rechunkScratch = new Rechunker.Scratch();
  final UpstreamPool pool;
  final SpliceSettings settings;
  final BufferBudget budget;
  final AddressCache addresses;
  final SpliceStats stats;
  private final Consumer<Throwable> onFatal;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean wakeupPending = new AtomicBoolean();
  private final Thread thread;
  private volatile boolean running = true;
  private long nextSweep = System.nanoTime() + SWEEP_INTERVAL_NANOS;

  EventLoop(String name, SpliceSettings settings, BufferBudget budget, AddressCache addresses,
      SpliceStats stats, Consumer<Throwable> onFatal) throws IOException {
    this.selector = Selector.open();
    this.settings = settings;
    this.budget = budget;
    this.addresses = addresses;
    this.stats = stats;
    this.onFatal = onFatal;
    this.pool = new UpstreamPool(this);
    this.thread = new LoopThread(this, name);
    this.thread.setDaemon(true);
  }

  /** A loop's own thread, so that work can tell which loop (if any) it runs on. */
  private static final class LoopThread extends Thread {
    final EventLoop loop;

    LoopThread(EventLoop loop, String name) {
      super(loop, name);
      this.loop = loop;
    }
  }

  /** The running loop whose thread this is, or null on any other thread. */
  static EventLoop current() {
    return Thread.currentThread() instanceof LoopThread own && own.loop.running
        ? own.loop : null;
  }

  void start() {
    thread.start();
  }

  boolean inLoop() {
    return Thread.currentThread() == thread;
  }

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
    if (!inLoop() && wakeupPending.compareAndSet(false, true)) {
      selector.wakeup();
    }
  }

  @Override
  public void run() {
    while (running) {
      try {
        // Ready keys go straight to their handler: no selected-key set to fill, walk and empty
        // on every wake-up (a HashSet insert and remove per event otherwise).
        if (tasks.isEmpty()) {
          selector.select(this::dispatch, 1000);
        } else {
          selector.selectNow(this::dispatch);  // work this loop gave itself (no wake-up sent)
        }
        wakeupPending.set(false);
        // Bounded: a task may queue another (the router's mailbox reschedules itself after a
        // few messages), and the streams on this loop must not wait for a flood to end.
        Runnable task;
        for (int run = 0; run < TASKS_PER_TURN && (task = tasks.poll()) != null; run++) {
          task.run();
        }
        long now = System.nanoTime();
        if (now - nextSweep >= 0) {
          nextSweep = now + SWEEP_INTERVAL_NANOS;
          for (SelectionKey key : selector.keys().toArray(new SelectionKey[0])) {
            if (key.isValid() && key.attachment() instanceof Handler handler) {
              handler.sweep(now);
            }
          }
        }
      } catch (ClosedSelectorException e) {
        return;
      } catch (RuntimeException | IOException e) {
        // A bug in one connection's handling must not stop every other stream on this loop.
        log.error("Splice loop {} caught an unexpected failure", thread.getName(), e);
      } catch (Error e) {
        running = false;
        fatal(e);
        return;
      }
    }
    closeAll();
  }

  private void dispatch(SelectionKey key) {
    if (key.isValid()) {
      ready((Handler) key.attachment(), key);
    }
  }

  private void fatal(Error error) {
    try {
      log.error("Splice loop {} stopped on a fatal error; its connections are closed",
          thread.getName(), error);
      closeAll();
    } catch (Throwable again) {
      error.addSuppressed(again);
    } finally {
      onFatal.accept(error);
    }
  }

  /** Asks every connection to close once its answer in flight (if any) is written. */
  void drainAll() {
    for (SelectionKey key : selector.keys().toArray(new SelectionKey[0])) {
      if (key.isValid() && key.attachment() instanceof Handler handler) {
        handler.drain();
      }
    }
  }

  /**
   * A failure in one connection's handling (a bug) closes that connection, releasing what it
   * holds, and never stops the other streams on this loop.
   */
  private void ready(Handler handler, SelectionKey key) {
    try {
      handler.ready(key);
    } catch (RuntimeException e) {
      log.error("Splice loop {}: closing a connection after an unexpected failure",
          thread.getName(), e);
      try {
        handler.closeNow();
      } catch (RuntimeException again) {
        log.error("Splice loop {}: closing failed too", thread.getName(), again);
      }
    }
  }

  /** Stops the loop; its connections are closed (streams in flight end abruptly). */
  void stop() {
    running = false;
    selector.wakeup();
  }

  private void closeAll() {
    Runnable task;
    while ((task = tasks.poll()) != null) {
      task.run();
    }
    for (SelectionKey key : selector.keys().toArray(new SelectionKey[0])) {
      if (key.attachment() instanceof Handler handler) {
        handler.closeNow();
      }
      try {
        key.channel().close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
    try {
      selector.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  /** Reads what {@code channel} has into {@link #readBuffer} (cleared first); -1 at its end. */
  int read(java.nio.channels.SocketChannel channel) throws IOException {
    readBuffer.clear();
    return channel.read(readBuffer);
  }

  boolean running() {
    return running;
  }
}
