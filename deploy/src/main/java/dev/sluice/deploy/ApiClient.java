package dev.sluice.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * The CLI's client of the controller API: sends a request, and turns an error answer into an
 * {@link IllegalStateException} carrying the API's own message (the CLI prints it and exits 1).
 * Sends the API's token ({@code SLUICE_CONTROLLER_API_TOKEN}) or, without one, the cluster token
 * ({@code SLUICE_CLUSTER_TOKEN}), when set.
 */
final class ApiClient {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI address;
  private final Optional<String> token;
  private final HttpClient http = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(5)).build();

  ApiClient(String address, Optional<String> token) {
    String base = address.endsWith("/") ? address.substring(0, address.length() - 1) : address;
    if (!base.startsWith("http://") && !base.startsWith("https://")) {
      throw new IllegalArgumentException("--address: " + address
          + " (expected: http://host:port, e.g. http://127.0.0.1:8265)");
    }
    this.address = URI.create(base);
    this.token = token.filter(t -> !t.isBlank());
  }

  static ApiClient fromEnvironment(String address) {
    return new ApiClient(address, token(System.getenv()));
  }

  /**
   * The token to send: the API's own ({@code SLUICE_CONTROLLER_API_TOKEN}, the first when it
   * lists several) when set, else the cluster token ({@code SLUICE_CLUSTER_TOKEN}), which opens
   * the API when it has none.
   */
  static Optional<String> token(java.util.Map<String, String> env) {
    return Optional.ofNullable(env.get("SLUICE_CONTROLLER_API_TOKEN"))
        .map(tokens -> tokens.split(",", -1)[0].strip())  // of several, the newest, first
        .filter(t -> !t.isBlank())
        .or(() -> Optional.ofNullable(env.get("SLUICE_CLUSTER_TOKEN")));
  }

  /** Sends {@code method path} with {@code body} (null: none); the answer's JSON. */
  JsonNode send(String method, String path, String body, String contentType) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(address + path))
        .timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("content-type", contentType);
    }
    token.ifPresent(t -> request.header("authorization", "Bearer " + t));
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (ConnectException e) {
      throw new IllegalStateException("no controller API at " + address + " (is a control node "
          + "running there? --address or SLUICE_ADDRESS)");
    } catch (IOException e) {
      throw new IllegalStateException("the controller API at " + address + " failed: "
          + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    }
    JsonNode json;
    try {
      json = JSON.readTree(response.body());
    } catch (IOException e) {
      throw new IllegalStateException("the controller API answered " + response.statusCode()
          + " with something that is not JSON");
    }
    if (response.statusCode() >= 400) {
      throw new IllegalStateException(json.at("/error/message").asText(
          "the controller API answered " + response.statusCode()));
    }
    return json;
  }
}
