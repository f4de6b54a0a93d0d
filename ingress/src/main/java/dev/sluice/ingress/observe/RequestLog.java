package dev.sluice.ingress.observe;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-request log: one line per request at INFO in the logger {@code sluice.requests}
 * (silence it with {@code <logger name="sluice.requests" level="OFF"/>}), as {@code key=value}
 * text or one JSON object. The request's thread only puts an immutable {@link Entry} into a
 * bounded lock-free queue (no wake-up, no lock: one CAS); a daemon thread wakes every
 * {@link #WAKE_MILLIS} ms, formats and writes what has queued up, so a slow log never slows a
 * selector thread and a busy ingress pays no thread hand-off per request. After
 * {@link #IDLE_WAKES} wake-ups that found nothing it sleeps until the next entry wakes it (one
 * hand-off, then polling again), so an idle node does not wake twenty times a second for it.
 * When the queue is full the entry is dropped and counted
 * ({@code sluice_ingress_request_log_dropped_total}), never waited for.
 */
public final class RequestLog implements AutoCloseable {

  public static final String LOGGER = "sluice.requests";

  /**
   * One request as logged. Times in ms; ttft -1 when no body byte was sent; tokens -1 when the
   * answer was not a stream (its tokens are not counted: "-" or null).
   */
  record Entry(String requestId, String dataPath, String route, String replica, int status,
      String reason, String outcome, double routeMs, double ttftMs, double durationMs,
      long tokens, long bytes) {}

  private static final Logger log = LoggerFactory.getLogger(LOGGER);
  private static final JsonFactory JSON = new JsonFactory();

  /** How long the writer sleeps when the queue is empty: a line is written within this. */
  static final long WAKE_MILLIS = 50;
  /** Empty wake-ups in a row (a second's worth) after which the writer sleeps until woken. */
  static final int IDLE_WAKES = 20;

  private final boolean json;
  private final int capacity;
  private final Queue<Entry> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private final Runnable onDrop;
  private final Thread writer;
  private volatile boolean running = true;
  /** The writer sleeps until an entry comes: the one who queues it wakes the writer. */
  private volatile boolean asleep;

  RequestLog(boolean json, int capacity, Runnable onDrop) {
    this.json = json;
    this.capacity = capacity;
    this.onDrop = onDrop;
    this.writer = new Thread(this::drain, "sluice-request-log");
    this.writer.setDaemon(true);
    this.writer.start();
  }

  /** Whether lines would be written at all (the logger's level): if not, nothing is queued. */
  static boolean loggerEnabled() {
    return log.isInfoEnabled();
  }

  void offer(Entry entry) {
    if (queued.incrementAndGet() > capacity) {
      queued.decrementAndGet();
      onDrop.run();
      return;
    }
    queue.add(entry);
    if (asleep) {
      asleep = false;
      LockSupport.unpark(writer);
    }
  }

  /** Whether the writer sleeps until the next entry (tests). */
  boolean asleep() {
    return asleep;
  }

  /** Whether the writer thread is still running (tests). */
  boolean writerAlive() {
    return writer.isAlive();
  }

  private void drain() {
    int emptyWakes = 0;
    while (true) {
      boolean stopping = !running;
      Entry entry;
      boolean wrote = false;
      while ((entry = queue.poll()) != null) {
        wrote = true;
        queued.decrementAndGet();
        try {
          log.info(json ? json(entry) : text(entry));
        } catch (RuntimeException e) {
          LoggerFactory.getLogger(RequestLog.class).warn("Request log line failed", e);
        }
      }
      if (stopping) {
        return;
      }
      emptyWakes = wrote ? 0 : emptyWakes + 1;
      if (emptyWakes < IDLE_WAKES) {
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(WAKE_MILLIS));
        continue;
      }
      // Announce the sleep, then look once more: an entry queued before the announcement was
      // seen by nobody's wake-up, one queued after it wakes this thread.
      asleep = true;
      if (queue.isEmpty() && running) {
        LockSupport.park(this);
      }
      asleep = false;
      emptyWakes = 0;
    }
  }

  static String text(Entry e) {
    StringBuilder line = new StringBuilder(192);
    line.append("request_id=").append(e.requestId())
        .append(" path=").append(e.dataPath())
        .append(" route=").append(e.route())
        .append(" replica=").append(e.replica() == null ? "-" : e.replica())
        .append(" status=").append(e.status())
        .append(" reason=").append(e.reason() == null ? "-" : e.reason())
        .append(" outcome=").append(e.outcome())
        .append(" route_ms=").append(ms(e.routeMs()))
        .append(" ttft_ms=").append(ms(e.ttftMs()))
        .append(" duration_ms=").append(ms(e.durationMs()))
        .append(" tokens=").append(e.tokens() < 0 ? "-" : Long.toString(e.tokens()))
        .append(" bytes=").append(e.bytes());
    return line.toString();
  }

  static String json(Entry e) {
    StringWriter out = new StringWriter(256);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("request_id", e.requestId());
      g.writeStringField("path", e.dataPath());
      g.writeStringField("route", e.route());
      g.writeStringField("replica", e.replica());
      g.writeNumberField("status", e.status());
      g.writeStringField("reason", e.reason());
      g.writeStringField("outcome", e.outcome());
      writeMs(g, "route_ms", e.routeMs());
      writeMs(g, "ttft_ms", e.ttftMs());
      writeMs(g, "duration_ms", e.durationMs());
      if (e.tokens() < 0) {
        g.writeNullField("tokens");
      } else {
        g.writeNumberField("tokens", e.tokens());
      }
      g.writeNumberField("bytes", e.bytes());
      g.writeEndObject();
    } catch (IOException impossible) {
      throw new java.io.UncheckedIOException(impossible);
    }
    return out.toString();
  }

  private static void writeMs(JsonGenerator g, String field, double value) throws IOException {
    if (value < 0) {
      g.writeNullField(field);
    } else {
      g.writeNumberField(field, Math.round(value * 100) / 100.0);
    }
  }

  /** Milliseconds with two decimals (without String.format: this runs once per request). */
  static String ms(double value) {
    if (value < 0) {
      return "-";
    }
    long hundredths = Math.round(value * 100);
    long fraction = hundredths % 100;
    return (hundredths / 100) + (fraction < 10 ? ".0" : ".") + fraction;
  }

  /** Writes what is queued, then stops the writer thread. */
  @Override
  public void close() {
    running = false;
    LockSupport.unpark(writer);
    try {
      writer.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
