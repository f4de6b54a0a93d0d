package dev.sluice.deploy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * {@code streams} clients sending streaming chat completions back to back through one ingress
 * while a fault is injected; the fate of every request is kept with its start and end time, so a
 * test can tell requests refused before their answer began from streams broken after it.
 */
final class FaultLoad implements AutoCloseable {

  enum Fate {
    /** 200 and the whole stream, {@code data: [DONE]} included. */
    COMPLETED,
    /** An answer other than 200 (its status and {@code X-Serve-Reason} kept). */
    REFUSED,
    /** No answer head at all: the connection failed before the status line. */
    FAILED_BEFORE_HEAD,
    /** 200, then the stream ended before {@code data: [DONE]}. */
    BROKEN
  }

  record Outcome(Fate fate, long startNanos, long endNanos, int status, String reason,
      String detail) {

    Duration took() {
      return Duration.ofNanos(endNanos - startNanos);
    }
  }

  private static final long RETRY_PAUSE_MS = 100;

  private final ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final ExecutorService clients;

  FaultLoad(int ingress, int streams, int maxTokens) {
    clients = Executors.newFixedThreadPool(streams);
    for (int i = 0; i < streams; i++) {
      int client = i;
      clients.submit(() -> {
        int n = 0;
        while (running.get()) {
          Outcome outcome = send(ingress, "{\"messages\":[{\"role\":\"user\",\"content\":\"fault "
              + client + "-" + n++ + "\"}],\"max_tokens\":" + maxTokens + ",\"stream\":true}");
          outcomes.add(outcome);
          if (outcome.fate() != Fate.COMPLETED) {
            // A refused client retries after a pause, as clients that back off do (the OpenAI
            // SDKs wait 0.5 s or more): 32 clients in a tight loop load 2 cores more than the
            // fault itself does.
            pause();
          }
        }
      });
    }
  }

  private static Outcome send(int ingress, String body) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ingress
            + "/v1/chat/completions"))
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .header("content-type", "application/json")
        .timeout(Duration.ofSeconds(60)).build();
    AtomicReference<HttpResponse.ResponseInfo> head = new AtomicReference<>();
    long start = System.nanoTime();
    try {
      HttpResponse<String> response = TestNodes.HTTP.send(request, info -> {
        head.set(info);
        return HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8);
      });
      String reason = response.headers().firstValue("x-serve-reason").orElse("");
      String why = response.headers().firstValue("x-sluice-detail").map(d -> d + ": ")
          .orElse("");
      Fate fate = response.statusCode() != 200 ? Fate.REFUSED
          : response.body().endsWith("data: [DONE]\n\n") ? Fate.COMPLETED : Fate.BROKEN;
      return new Outcome(fate, start, System.nanoTime(), response.statusCode(), reason,
          fate == Fate.COMPLETED ? "" : why + abbreviate(response.body()));
    } catch (IOException | InterruptedException e) {
      HttpResponse.ResponseInfo info = head.get();
      return new Outcome(info == null ? Fate.FAILED_BEFORE_HEAD : Fate.BROKEN, start,
          System.nanoTime(), info == null ? 0 : info.statusCode(), "", causes(e));
    }
  }

  /**
   * The exception and its causes: the JDK's client wraps what failed a connect in a
   * ConnectException that may carry no message of its own.
   */
  private static String causes(Throwable e) {
    StringBuilder chain = new StringBuilder(e.toString());
    Throwable cause = e.getCause();
    for (int depth = 0; cause != null && depth < 8; depth++, cause = cause.getCause()) {
      chain.append(" <- ").append(cause);
    }
    return chain.toString();
  }

  private static String abbreviate(String body) {
    return body.substring(0, Math.min(200, body.length()));
  }

  private static void pause() {
    try {
      Thread.sleep(RETRY_PAUSE_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The requests that ended so far. */
  List<Outcome> outcomes() {
    return List.copyOf(outcomes);
  }

  /** Requests started at or after {@code nanos} that match {@code filter}. */
  List<Outcome> startedAfter(long nanos, Predicate<Outcome> filter) {
    return outcomes.stream().filter(o -> o.startNanos() >= nanos).filter(filter).toList();
  }

  /** What happened, request by request, in time relative to {@code origin}: for failure messages. */
  static String timeline(List<Outcome> outcomes, long origin) {
    StringBuilder lines = new StringBuilder();
    outcomes.stream().sorted(java.util.Comparator.comparingLong(Outcome::startNanos)).limit(40)
        .forEach(o -> lines.append(String.format("%n  started %+d ms, took %d ms: %s %d %s %s",
            (o.startNanos() - origin) / 1_000_000, o.took().toMillis(), o.fate(), o.status(),
            o.reason(), o.detail())));
    return lines.toString();
  }

  /** Counts by fate, status and reason of the requests started after {@code nanos}. */
  String summary(long nanos) {
    java.util.Map<String, Long> counts = new java.util.TreeMap<>();
    startedAfter(nanos, o -> true).forEach(o -> counts.merge(o.fate() + " " + o.status() + " "
        + o.reason(), 1L, Long::sum));
    return counts.toString();
  }

  /** Stops sending; waits for the requests in flight to end. */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    clients.shutdown();
    if (!clients.awaitTermination(90, TimeUnit.SECONDS)) {
      clients.shutdownNow();
    }
  }
}
