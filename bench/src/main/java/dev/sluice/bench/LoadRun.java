package dev.sluice.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Recorder;

/**
 * Closed-loop streaming load against one OpenAI endpoint: {@code concurrency} keep-alive
 * connections, each sending streaming chat completions back to back until {@code requests} have
 * been sent. Bounded by the request count; every request has a 60 s socket timeout.
 */
public final class LoadRun {

  /** What to run. */
  public record Options(URI target, int concurrency, int requests, int maxTokens, String prompt) {
    public Options {
      Objects.requireNonNull(target, "target");
      if (concurrency < 1) {
        throw new IllegalArgumentException("--concurrency: " + concurrency + " (expected: >= 1)");
      }
      if (requests < 1) {
        throw new IllegalArgumentException("--requests: " + requests + " (expected: >= 1)");
      }
      if (maxTokens < 1) {
        throw new IllegalArgumentException("--max-tokens: " + maxTokens + " (expected: >= 1)");
      }
    }
  }

  private LoadRun() {}

  public static LoadResult run(Options options) throws InterruptedException {
    byte[] body = ("{\"model\":null,\"messages\":[{\"role\":\"user\",\"content\":\""
        + options.prompt() + "\"}],\"max_tokens\":" + options.maxTokens()
        + ",\"stream\":true}").getBytes(StandardCharsets.UTF_8);
    AtomicInteger tickets = new AtomicInteger(options.requests());
    Recorder ttfb = new Recorder(3);
    Recorder e2e = new Recorder(3);
    AtomicLong frames = new AtomicLong();
    AtomicLong cpu = new AtomicLong();
    Map<String, AtomicLong> outcomes = new ConcurrentHashMap<>();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    List<Thread> workers = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < options.concurrency(); i++) {
      Thread worker = new Thread(() -> {
        long cpuStart = threads.getCurrentThreadCpuTime();
        try (HttpStreamClient client = new HttpStreamClient(options.target().getHost(),
            options.target().getPort())) {
          while (tickets.getAndDecrement() > 0) {
            long sent = System.nanoTime();
            try {
              HttpStreamClient.Exchange exchange =
                  client.post("/v1/chat/completions", body, sent);
              outcomes.computeIfAbsent(String.valueOf(exchange.status()), k -> new AtomicLong())
                  .incrementAndGet();
              if (exchange.status() == 200) {
                ttfb.recordValue((exchange.firstByteNanos() - sent) / 1_000);
                e2e.recordValue((exchange.endNanos() - sent) / 1_000);
                frames.addAndGet(exchange.frames());
              }
            } catch (java.io.IOException e) {
              client.close();
              outcomes.computeIfAbsent("io-error", k -> new AtomicLong()).incrementAndGet();
            }
          }
        } finally {
          cpu.addAndGet(threads.getCurrentThreadCpuTime() - cpuStart);
        }
      }, "load-" + i);
      worker.setDaemon(true);
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<String, Long> byOutcome = new TreeMap<>();
    outcomes.forEach((k, v) -> byOutcome.put(k, v.get()));
    return new LoadResult(options.target().toString(), options.concurrency(), seconds, byOutcome,
        frames.get(), ttfb.getIntervalHistogram(), e2e.getIntervalHistogram(), cpu.get());
  }
}
