package dev.sluice.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.testing.Await;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus (Debian's {@code prometheus}) on loopback scraping one node every second,
 * with rule files if given, ready when started; {@link #close} stops it.
 */
final class TestPrometheus implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final int port;
  private final Path dir;
  private final Process process;

  private TestPrometheus(int port, Path dir, Process process) {
    this.port = port;
    this.dir = dir;
    this.process = process;
  }

  /** Scrapes {@code metricsPort} as job {@code sluice}, evaluating {@code rules} if any. */
  static TestPrometheus start(int port, int metricsPort, Path... rules) throws Exception {
    Path dir = Files.createTempDirectory("sluice-prometheus");
    Path config = dir.resolve("prometheus.yml");
    StringBuilder files = new StringBuilder();
    for (Path rule : rules) {
      files.append(files.length() == 0 ? "" : ", ").append('"').append(rule.toAbsolutePath())
          .append('"');
    }
    Files.writeString(config, """
        global: {scrape_interval: 1s, evaluation_interval: 1s}
        rule_files: [%s]
        scrape_configs:
          - job_name: sluice
            static_configs: [{targets: ["127.0.0.1:%d"]}]
        """.formatted(files, metricsPort));
    Process process = new ProcessBuilder("prometheus", "--config.file=" + config,
        "--storage.tsdb.path=" + dir.resolve("data"), "--log.level=warn",
        "--web.listen-address=127.0.0.1:" + port)
        .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile())
        .start();
    TestPrometheus prometheus = new TestPrometheus(port, dir, process);
    try {
      Await.untilOk(Duration.ofSeconds(30), "Prometheus ready", () -> TestNodes.get(port,
          "/-/ready").statusCode() == 200);
    } catch (AssertionError e) {
      prometheus.close();
      throw e;
    }
    return prometheus;
  }

  /** The {@code data} of a successful API answer; throws (to be waited on) otherwise. */
  JsonNode api(String path) throws Exception {
    HttpResponse<String> response = TestNodes.get(port, path);
    JsonNode body = JSON.readTree(response.body());
    if (!body.path("status").asText().equals("success")) {
      throw new IllegalStateException(path + " -> " + response.body());
    }
    return body.path("data");
  }

  /** An instant query's result. */
  JsonNode query(String expr) throws Exception {
    return api("/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8))
        .path("result");
  }

  /** Its targets and its log, for a failure's message. */
  String diagnostics() throws Exception {
    return "targets: " + TestNodes.get(port, "/api/v1/targets").body() + "; log: "
        + Files.readString(dir.resolve("prometheus.log"));
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
