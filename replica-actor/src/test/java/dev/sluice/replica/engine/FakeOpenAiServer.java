package dev.sluice.replica.engine;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stand-in for an OpenAI-compatible engine server such as vLLM, run as a child process by
 * {@link OpenAiProcessEngineIT}; JDK only, so its classpath is the test classes alone.
 *
 * <p>Arguments: {@code --port N} (required), {@code --model M}, {@code --health-delay-ms D}
 * (503 on {@code /health} until then), {@code --metrics-file F} ({@code /metrics} serves the
 * file, read at each request; 404 without), {@code --exit-after-ms T --exit-code C} (exits by
 * itself). It prints {@code $FAKE_ENGINE_GREETING} if set. {@code POST /v1/completions} streams
 * {@code max_tokens} tokens "t0", " t1", ... as SSE, or answers 400 for the prompt "fail".
 */
public final class FakeOpenAiServer {

  private static final Pattern MAX_TOKENS = Pattern.compile("\"max_tokens\"\\s*:\\s*(\\d+)");

  private FakeOpenAiServer() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      options.put(args[i], args[i + 1]);
    }
    int port = Integer.parseInt(options.get("--port"));
    long healthyAt = System.currentTimeMillis()
        + Long.parseLong(options.getOrDefault("--health-delay-ms", "0"));
    String greeting = System.getenv("FAKE_ENGINE_GREETING");
    if (greeting != null) {
      System.out.println(greeting);
    }
    if (options.containsKey("--gpus-file")) {  // which GPUs it was given, for the test to read
      String gpus = System.getenv("CUDA_VISIBLE_DEVICES");
      java.nio.file.Files.writeString(java.nio.file.Path.of(options.get("--gpus-file")),
          gpus == null ? "(unset)" : gpus);
    }
    if (options.containsKey("--exit-after-ms")) {
      Thread.sleep(Long.parseLong(options.get("--exit-after-ms")));
      System.err.println("fatal: no GPU found");
      System.exit(Integer.parseInt(options.getOrDefault("--exit-code", "1")));
    }
    HttpServer server = HttpServer.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
    server.createContext("/health", exchange -> answer(exchange,
        System.currentTimeMillis() >= healthyAt ? 200 : 503, "text/plain", ""));
    // --api-key-env NAME: /metrics needs "Authorization: Bearer <$NAME>", as vLLM's --api-key.
    String apiKey = options.containsKey("--api-key-env")
        ? System.getenv(options.get("--api-key-env")) : null;
    server.createContext("/metrics", exchange -> {
      String file = options.get("--metrics-file");
      if (apiKey != null && !("Bearer " + apiKey).equals(
          exchange.getRequestHeaders().getFirst("Authorization"))) {
        answer(exchange, 401, "text/plain", "unauthorized");
      } else if (file == null) {
        answer(exchange, 404, "text/plain", "not found");
      } else {
        answer(exchange, 200, "text/plain; version=0.0.4", Files.readString(Path.of(file)));
      }
    });
    server.createContext("/v1/completions", FakeOpenAiServer::completions);
    server.start();
    System.out.println("fake engine serving " + options.get("--model") + " on port " + port);
  }

  private static void completions(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    if (body.contains("\"prompt\":\"fail\"")) {
      answer(exchange, 400, "application/json", "{\"error\":{\"message\":\"bad prompt\"}}");
      return;
    }
    Matcher max = MAX_TOKENS.matcher(body);
    int tokens = max.find() ? Integer.parseInt(max.group(1)) : 16;
    exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
    exchange.sendResponseHeaders(200, 0);
    try (OutputStream out = exchange.getResponseBody()) {
      for (int i = 0; i < tokens; i++) {
        String text = (i == 0 ? "" : " ") + "t" + i;
        out.write(("data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{"
            + "\"index\":0,\"text\":\"" + text + "\",\"finish_reason\":null}]}\n\n")
            .getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
      out.write("data: {\"id\":\"cmpl-1\",\"choices\":[],\"usage\":{\"completion_tokens\":1}}\n\n"
          .getBytes(StandardCharsets.UTF_8));
      out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
    }
  }

  private static void answer(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
