package dev.sluice.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** Starts real nodes on loopback with ephemeral ports for tests. */
final class TestNodes {

  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private TestNodes() {}

  /** Ephemeral ports everywhere, fast reconcile, every message serialized. */
  static Config overrides() {
    return ConfigFactory.parseString("""
        pekko.remote.artery.canonical.port = 0
        sluice.ingress.port = 0
        sluice.router.http.port = 0
        sluice.controller.api.port = 0
        sluice.metrics.port = 0
        sluice.replica.port-range = "0"
        sluice.controller.reconcile-interval = 200ms
        sluice.controller.publish-interval = 300ms
        """).withFallback(ConfigFactory.parseResources("application-test-base.conf"));
  }

  static Path appFile(String yaml) {
    try {
      Path file = Files.createTempFile("sluice-app", ".yaml");
      Files.writeString(file, yaml);
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A one-JVM cluster with every role serving {@code yaml}, ready when its replicas are. */
  static SluiceNode local(String yaml, Config extra) throws Exception {
    SluiceNode node = SluiceNode.start(
        NodeOptions.local(Optional.of(appFile(yaml)), extra.withFallback(overrides())));
    ClusterReadiness.awaitReplicas(node, Duration.ofSeconds(30));
    return node;
  }

  static String app(int replicas, int ttftMs, int itlMs, int maxOngoing) {
    return """
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: sim}
                engine_config: {type: simulated, ttft_ms: %d, itl_ms: %d, default_max_tokens: 16}
                deployment_config: {num_replicas: %d, max_ongoing_requests: %d}
        """.formatted(ttftMs, itlMs, replicas, maxOngoing);
  }

  static HttpResponse<String> post(int port, String path, String body, String... headers)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(
            "http://127.0.0.1:" + port + path))
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .header("content-type", "application/json")
        .timeout(Duration.ofSeconds(30));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** {@code method path} on the controller API of {@code port}, with a body (null: none). */
  static HttpResponse<String> api(int port, String method, String path, String body,
      String contentType) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(
            "http://127.0.0.1:" + port + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body))
        .timeout(Duration.ofSeconds(30));
    if (contentType != null) {
      request.header("content-type", contentType);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The controller's status tree. */
  static com.fasterxml.jackson.databind.JsonNode status(SluiceNode node) throws Exception {
    HttpResponse<String> response = api(node.apiPort().orElseThrow(), "GET",
        "/api/applications", null, null);
    if (response.statusCode() != 200) {
      throw new IllegalStateException("status: " + response.statusCode() + " " + response.body());
    }
    return dev.sluice.core.testing.Sse.json(response.body());
  }

  /** The status of deployment {@code name} of app {@code app}. */
  static com.fasterxml.jackson.databind.JsonNode deployment(SluiceNode node, String app,
      String name) throws Exception {
    for (var each : status(node).path("applications")) {
      if (each.path("name").asText().equals(app)) {
        for (var deployment : each.path("deployments")) {
          if (deployment.path("name").asText().equals(name)) {
            return deployment;
          }
        }
      }
    }
    throw new IllegalStateException("no deployment " + app + "/" + name);
  }
}
