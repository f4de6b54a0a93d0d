package dev.sluice.bench;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How to drive one target.
 *
 * @param requests how many requests (for multi-turn: sessions × turns); with a duration, an upper
 *     bound
 * @param duration stop issuing requests after this long, if given
 * @param rate open loop: Poisson arrivals at this many requests/s; empty = closed loop
 * @param warmup unmeasured requests first
 */
public record LoadOptions(
    URI target,
    Workload workload,
    int concurrency,
    long requests,
    Optional<Duration> duration,
    Optional<Double> rate,
    int warmup,
    String sessionHeader) {

  public LoadOptions {
    Objects.requireNonNull(target, "target");
    if (!"http".equals(target.getScheme()) || target.getHost() == null || target.getPort() < 0) {
      throw new IllegalArgumentException("--url: " + target + " (expected: http://host:port)");
    }
    if (concurrency < 1) {
      throw new IllegalArgumentException("--concurrency: " + concurrency + " (expected: >= 1)");
    }
    if (requests < 1) {
      throw new IllegalArgumentException("--requests: " + requests + " (expected: >= 1)");
    }
    if (rate.isPresent() && !(rate.get() > 0)) {
      throw new IllegalArgumentException("--rate: " + rate.get() + " (expected: > 0)");
    }
    if (warmup < 0) {
      throw new IllegalArgumentException("--warmup: " + warmup + " (expected: >= 0)");
    }
  }

  public LoadOptions withTarget(URI other) {
    return new LoadOptions(other, workload, concurrency, requests, duration, rate, warmup,
        sessionHeader);
  }

  public LoadOptions withRequests(long count, int warm) {
    return new LoadOptions(target, workload, concurrency, count, duration, rate, warm,
        sessionHeader);
  }

  public LoadOptions withConcurrency(int level) {
    return new LoadOptions(target, workload, level, requests, duration, rate, warmup,
        sessionHeader);
  }
}
