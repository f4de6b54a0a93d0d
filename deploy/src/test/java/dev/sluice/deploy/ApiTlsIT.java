package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The controller API over HTTPS ({@code sluice.controller.api.tls-dir}) on a real node, with
 * certificates made by the JDK's keytool: the CLI's client trusting the CA reads the API, one
 * that does not is told what to trust, plain HTTP gets nothing, and a folder that cannot work
 * stops the node naming the file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApiTlsIT {

  private Path certificates;
  private SluiceNode node;
  private String https;

  @BeforeAll
  void start() throws Exception {
    Path folder = Files.createTempDirectory("sluice-api-tls");
    certificates = TestCertificates.issue(folder.resolve("api"), "sluice test CA", "sluice-api",
        "ip:127.0.0.1");
    node = TestNodes.local(TestNodes.app(1, 0, 1, 8), ConfigFactory.parseString(
        "sluice.controller.api.tls-dir = \"" + certificates + "\""));
    https = "https://127.0.0.1:" + node.apiPort().orElseThrow();
  }

  @AfterAll
  void stop() {
    node.close();
  }

  @Test
  void aClientTrustingTheCaReadsTheApiAndTheDashboardOverHttps() throws Exception {
    ApiClient client = new ApiClient(https, Optional.empty(),
        Optional.of(certificates.resolve("ca.crt")));
    JsonNode cluster = client.send("GET", "/api/cluster", null, null);
    assertThat(cluster.path("members")).hasSize(1);
    JsonNode status = client.send("GET", "/api/applications", null, null);
    assertThat(status.at("/applications/0/name").asText()).isEqualTo("llm");

    var trusting = java.net.http.HttpClient.newBuilder()
        .sslContext(ApiClient.trusting(certificates.resolve("ca.crt"))).build();
    HttpResponse<String> page = trusting.send(HttpRequest.newBuilder(URI.create(https + "/"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("<title>");
  }

  @Test
  void aClientThatDoesNotTrustTheCaIsToldWhatToTrustAndPlainHttpGetsNothing() {
    assertThatThrownBy(() -> new ApiClient(https, Optional.empty()).send("GET", "/api/cluster",
        null, null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("certificate is not trusted or not for this host")
        .hasMessageContaining("SLUICE_API_CA_FILE");
    assertThatThrownBy(() -> TestNodes.get(node.apiPort().orElseThrow(), "/api/cluster"))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> new ApiClient(https.replace("https:", "http:"), Optional.empty())
        .send("GET", "/api/cluster", null, null))
        .hasMessageEndingWith("(if it is served over HTTPS, give an https:// address)");
  }

  @Test
  void aFolderThatCannotWorkStopsTheNodeNamingTheFile() throws Exception {
    Path other = TestCertificates.issue(Files.createTempDirectory("sluice-api-tls-other"),
        "another CA", "sluice-api", "ip:127.0.0.1");
    Path mixed = Files.createDirectories(certificates.resolveSibling("mixed"));
    Files.copy(certificates.resolve("tls.key"), mixed.resolve("tls.key"));
    Files.copy(other.resolve("tls.crt"), mixed.resolve("tls.crt"),
        StandardCopyOption.REPLACE_EXISTING);
    assertThatThrownBy(() -> SluiceNode.start(NodeOptions.local(Optional.empty(),
        ConfigFactory.parseString("sluice.controller.api.tls-dir = \"" + mixed + "\"")
            .withFallback(TestNodes.overrides()))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("sluice.controller.api.tls-dir (SLUICE_API_TLS_DIR): "
            + mixed.resolve("tls.crt") + " is not the certificate of tls.key");
  }
}
