package dev.sluice.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;

/**
 * The CLI's client of the controller API: sends a request, and turns an error answer into an
 * {@link IllegalStateException} carrying the API's own message (the CLI prints it and exits 1).
 * Sends the API's token ({@code SLUICE_CONTROLLER_API_TOKEN}) or, without one, the cluster token
 * ({@code SLUICE_CLUSTER_TOKEN}), when set; trusts {@code SLUICE_API_CA_FILE} for https.
 */
final class ApiClient {

  /** The env variable naming the CA file the CLI trusts for an {@code https} API. */
  static final String CA_FILE = "SLUICE_API_CA_FILE";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI address;
  private final Optional<String> token;
  private final HttpClient http;

  ApiClient(String address, Optional<String> token) {
    this(address, token, Optional.empty());
  }

  /** {@code ca}: a PEM file of the CA(s) to trust for an {@code https} address (else the JDK's). */
  ApiClient(String address, Optional<String> token, Optional<Path> ca) {
    String base = address.endsWith("/") ? address.substring(0, address.length() - 1) : address;
    if (!base.startsWith("http://") && !base.startsWith("https://")) {
      throw new IllegalArgumentException("--address: " + address
          + " (expected: http://host:port, e.g. http://127.0.0.1:8265, or https://)");
    }
    this.address = URI.create(base);
    this.token = token.filter(t -> !t.isBlank());
    HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
    ca.ifPresent(file -> http.sslContext(trusting(file)));
    this.http = http.build();
  }

  static ApiClient fromEnvironment(String address) {
    return new ApiClient(address, token(System.getenv()),
        Optional.ofNullable(System.getenv(CA_FILE)).filter(f -> !f.isBlank()).map(Path::of));
  }

  /** A TLS context trusting the CA certificates of a PEM file. */
  static SSLContext trusting(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int n = 0;
      for (Certificate ca : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + n++, ca);
      }
      if (n == 0) {
        throw new GeneralSecurityException("no certificate");
      }
      TrustManagerFactory trust = TrustManagerFactory.getInstance(
          TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(CA_FILE + ": " + file + " (expected: a readable PEM "
          + "file of the CA that signed the API's certificate)");
    }
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
    } catch (SSLHandshakeException e) {
      throw new IllegalStateException("the controller API at " + address + " failed: its "
          + "certificate is not trusted or not for this host (" + CA_FILE + " names the CA "
          + "to trust)");
    } catch (IOException e) {
      throw new IllegalStateException("the controller API at " + address + " failed: "
          + e.getMessage() + (address.getScheme().equals("http")
              ? " (if it is served over HTTPS, give an https:// address)" : ""));
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
