package dev.sluice.deploy;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code streams} clients each sending streaming chat completions back to back through an
 * ingress until stopped; every answer must be a 200 ending in {@code data: [DONE]}.
 */
final class StreamLoad implements AutoCloseable {

  final AtomicInteger completed = new AtomicInteger();
  final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final ExecutorService clients;

  StreamLoad(int ingress, int streams, int maxTokens) {
    clients = Executors.newFixedThreadPool(streams);
    for (int i = 0; i < streams; i++) {
      int client = i;
      clients.submit(() -> {
        int n = 0;
        while (running.get()) {
          String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"load " + client + "-"
              + n++ + "\"}],\"max_tokens\":" + maxTokens + ",\"stream\":true}";
          try {
            HttpResponse<String> response = TestNodes.post(ingress, "/v1/chat/completions",
                body);
            if (response.statusCode() == 200 && response.body().endsWith("data: [DONE]\n\n")) {
              completed.incrementAndGet();
            } else {
              failures.add(response.statusCode() + " "
                  + response.headers().firstValue("x-serve-reason").orElse("") + " "
                  + response.body().substring(0, Math.min(200, response.body().length())));
            }
          } catch (Exception e) {
            failures.add(e.toString());
          }
        }
      });
    }
  }

  /** Stops sending; waits for the streams in flight to end. */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    clients.shutdown();
    clients.awaitTermination(60, TimeUnit.SECONDS);
  }

  List<String> failures() {
    return List.copyOf(failures);
  }
}
