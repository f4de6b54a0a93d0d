package dev.sluice.core.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.testing.RawHttp;
import java.io.BufferedInputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A real Pekko HTTP server with the handler: what a client that sends bytes it refuses reads. */
class OpenAiParsingErrorsTest {

  private static final ActorTestKit testKit = ActorTestKit.create();
  private static int port;
  private static int plainPort;

  @BeforeAll
  static void bind() throws Exception {
    port = bind(OpenAiParsingErrors.applyTo(ServerSettings.create(testKit.system()
        .classicSystem())));
    plainPort = bind(ServerSettings.create(testKit.system().classicSystem()));
  }

  private static int bind(ServerSettings settings) throws Exception {
    ServerBinding binding = Http.get(testKit.system()).newServerAt("127.0.0.1", 0)
        .withSettings(settings)
        .bind((org.apache.pekko.japi.function.Function<HttpRequest, CompletionStage<HttpResponse>>)
            request -> CompletableFuture.completedFuture(HttpResponse.create()))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    return binding.localAddress().getPort();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static RawHttp.Response exchange(int port, String request) throws Exception {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      return RawHttp.response(new BufferedInputStream(socket.getInputStream()));
    }
  }

  private static JsonNode error(RawHttp.Response response) throws Exception {
    assertThat(response.header("content-type")).isEqualTo("application/json");
    return new ObjectMapper().readTree(response.body()).get("error");
  }

  @Test
  void aControlByteInAHeaderValueGetsA400InTheOpenAiShape() throws Exception {
    String request = "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n";
    RawHttp.Response response = exchange(port, request);

    assertThat(response.status()).isEqualTo(400);
    JsonNode error = error(response);
    assertThat(error.get("code").asText()).isEqualTo("invalid_request");
    assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.get("message").asText()).contains("Illegal character");
    assertThat(response.header("connection")).isEqualTo("close");
    // Pekko's own answer, for contrast: the shape no client of an OpenAI API parses.
    assertThat(exchange(plainPort, request).header("content-type")).startsWith("text/plain");
  }

  @Test
  void aTargetOverTheLimitGetsA414NamingIt() throws Exception {
    RawHttp.Response response = exchange(port, "GET /" + "a".repeat(3000)
        + " HTTP/1.1\r\nHost: x\r\n\r\n");

    assertThat(response.status()).isEqualTo(414);
    assertThat(error(response).get("code").asText()).isEqualTo("uri_too_long");
  }

  @Test
  void anUnknownMethodGetsA501() throws Exception {
    RawHttp.Response response = exchange(port, "BREW / HTTP/1.1\r\nHost: x\r\n\r\n");

    assertThat(response.status()).isEqualTo(501);
    assertThat(error(response).get("code").asText()).isEqualTo("not_implemented");
  }

  @Test
  void everyStatusMapsToACodeOfItsClass() {
    assertThat(OpenAiParsingErrors.code(400)).isEqualTo(ApiError.Code.INVALID_REQUEST);
    assertThat(OpenAiParsingErrors.code(431)).isEqualTo(ApiError.Code.HEADERS_TOO_LARGE);
    assertThat(OpenAiParsingErrors.code(418).status()).isEqualTo(400);
    assertThat(OpenAiParsingErrors.code(507).status()).isEqualTo(500);
  }
}
