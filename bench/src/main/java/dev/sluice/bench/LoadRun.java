package dev.sluice.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Drives one target: {@code concurrency} keep-alive connections, closed loop (each sends its
 * next request when the previous one ends) or open loop (Poisson arrivals at {@code rate}, due
 * times queued for the connections; latency counts from the due time). Always bounded: by the
 * request count, by the duration if given, and by a 120 s socket timeout per request.
 */
public final class LoadRun {

  private static final String CHAT = "/v1/chat/completions";

  private final LoadOptions options;
  private final Progress progress;
  private final RequestPlan plan;
  private final Measurements measured;
  private final LongAdder cpuNanos = new LongAdder();
  private final long firstIndex;
  private volatile long deadline = Long.MAX_VALUE;

  private LoadRun(LoadOptions options, Progress progress, Measurements measured,
      long firstIndex) {
    this.options = options;
    this.progress = progress;
    this.measured = measured;
    this.firstIndex = firstIndex;
    this.plan = new RequestPlan(options.workload());
  }

  public static BenchResult run(LoadOptions options, Progress progress)
      throws InterruptedException {
    Measurements measured = new Measurements();
    Round round = round(options, progress, measured, 0);
    return BenchResult.of(options, measured, round.seconds(), round.cpuSeconds());
  }

  /** What one round took. */
  record Round(double seconds, double cpuSeconds) {}

  /**
   * One round into shared measurements (side-by-side runs alternate rounds between targets);
   * requests are numbered from {@code firstIndex} so that rounds send different requests.
   */
  static Round round(LoadOptions options, Progress progress, Measurements measured,
      long firstIndex) throws InterruptedException {
    warmUp(options);
    return measuredRound(options, progress, measured, firstIndex);
  }

  /** The unmeasured requests {@code options} asks for first (none when its warm-up is 0). */
  static void warmUp(LoadOptions options) throws InterruptedException {
    if (options.warmup() > 0) {
      new LoadRun(options.withRequests(options.warmup(), 0)
          .withConcurrency(Math.min(options.concurrency(), options.warmup())), Progress.none(),
          new Measurements(), 1L << 40).execute();
    }
  }

  /** A round without its warm-up. */
  static Round measuredRound(LoadOptions options, Progress progress, Measurements measured,
      long firstIndex) throws InterruptedException {
    LoadRun run = new LoadRun(options, progress, measured, firstIndex);
    double seconds = run.execute();
    return new Round(seconds, run.cpuNanos.sum() / 1e9);
  }

  private double execute() throws InterruptedException {
    long total = options.workload().multiTurn()
        ? (long) options.workload().sessions() * options.workload().turns()
        : options.requests();
    long start = System.nanoTime();
    options.duration().ifPresent(d -> deadline = start + d.toNanos());
    long before = measured.requests.sum();
    Thread ticker = progressTicker(total, start, before);
    List<Thread> threads = new ArrayList<>();
    if (options.workload().multiTurn()) {
      AtomicLong sessions = new AtomicLong();
      for (int i = 0; i < options.concurrency(); i++) {
        threads.add(worker(client -> sessions(client, sessions)));
      }
    } else if (options.rate().isPresent()) {
      BlockingQueue<long[]> due = new ArrayBlockingQueue<>(65_536);
      threads.add(dispatcher(due, total, start));
      for (int i = 0; i < options.concurrency(); i++) {
        threads.add(worker(client -> openLoop(client, due)));
      }
    } else {
      AtomicLong tickets = new AtomicLong();
      for (int i = 0; i < options.concurrency(); i++) {
        threads.add(worker(client -> closedLoop(client, tickets, total)));
      }
    }
    threads.forEach(Thread::start);
    for (Thread thread : threads) {
      thread.join();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    ticker.interrupt();
    progress.done();
    return seconds;
  }

  private interface Body {
    void run(HttpStreamClient client) throws InterruptedException;
  }

  private Thread worker(Body body) {
    Thread thread = new Thread(() -> {
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long cpuStart = threads.getCurrentThreadCpuTime();
      try (HttpStreamClient client = new HttpStreamClient(options.target().getHost(),
          options.target().getPort())) {
        body.run(client);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        cpuNanos.add(threads.getCurrentThreadCpuTime() - cpuStart);
      }
    }, "bench-worker");
    thread.setDaemon(true);
    return thread;
  }

  private boolean expired() {
    return System.nanoTime() > deadline;
  }

  private void closedLoop(HttpStreamClient client, AtomicLong tickets, long total) {
    long index;
    while (!expired() && (index = tickets.getAndIncrement()) < total) {
      send(client, plan.request(firstIndex + index), System.nanoTime());
    }
  }

  private void openLoop(HttpStreamClient client, BlockingQueue<long[]> due)
      throws InterruptedException {
    while (true) {
      long[] next = due.take();
      if (next[0] < 0) {
        due.put(next);
        return;
      }
      long wait = next[1] - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      send(client, plan.request(firstIndex + next[0]), next[1]);
    }
  }

  /** Poisson arrivals: exponential gaps with mean 1/rate; a poison pill ends the workers. */
  private Thread dispatcher(BlockingQueue<long[]> due, long total, long start) {
    Thread thread = new Thread(() -> {
      SplittableRandom random = new SplittableRandom(options.workload().seed());
      double meanGapNanos = 1e9 / options.rate().get();
      long at = start;
      try {
        for (long i = 0; i < total; i++) {
          at += (long) (-Math.log(1 - random.nextDouble()) * meanGapNanos);
          if (at > deadline) {
            break;
          }
          due.put(new long[] {i, at});
        }
        due.put(new long[] {-1, 0});
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "bench-dispatcher");
    thread.setDaemon(true);
    return thread;
  }

  private void sessions(HttpStreamClient client, AtomicLong sessions) {
    long session;
    Workload workload = options.workload();
    while (!expired() && (session = sessions.getAndIncrement()) < workload.sessions()) {
      for (int turn = 0; turn < workload.turns() && !expired(); turn++) {
        send(client, plan.turn((int) session, turn), System.nanoTime());
      }
    }
  }

  private void send(HttpStreamClient client, RequestPlan.Planned request, long sentNanos) {
    String session = request.session().orElse(null);
    try {
      HttpStreamClient.Exchange exchange = client.post(CHAT, request.body(),
          options.sessionHeader(), session);
      measured.record(exchange, sentNanos, true, session);
    } catch (IOException e) {
      client.close();
      measured.recordFailure("io-error");
    }
  }

  private Thread progressTicker(long total, long start, long before) {
    Thread thread = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        progress.update(measured.requests.sum() - before, total,
            (System.nanoTime() - start) / 1e9);
        try {
          TimeUnit.MILLISECONDS.sleep(200);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "bench-progress");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }
}
