package dev.sluice.replica.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Framing;
import org.apache.pekko.stream.javadsl.FramingTruncation;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.StreamConverters;
import org.apache.pekko.util.ByteString;

/**
 * Generation through an OpenAI-compatible server's {@code POST /v1/completions} with
 * {@code stream: true}: each SSE event's {@code choices[0].text} is one token of the
 * {@link Engine} SPI. The request's seed and stop strings go along (the server leaves a stop
 * string out of its text); its choice index does not (each choice is a request of its own).
 * Cancelling the source closes the connection, which aborts the request in vLLM, SGLang and
 * llama.cpp.
 */
final class CompletionsClient {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_EVENT_BYTES = 1 << 20;
  private static final int MAX_ERROR_BYTES = 4096;
  private static final ByteString NEWLINE = ByteString.fromString("\n");

  private final HttpClient client;
  private final URI uri;
  private final String model;
  /** {@code Authorization} sent to the server: the cluster token's, when one is set. */
  private final java.util.Optional<String> authorization;

  CompletionsClient(HttpClient client, URI uri, String model,
      java.util.Optional<String> authorization) {
    this.client = client;
    this.uri = uri;
    this.model = model;
    this.authorization = authorization;
  }

  Source<String, NotUsed> generate(GenerationRequest request) {
    ObjectNode body = JSON.createObjectNode()
        .put("model", model)
        .put("prompt", request.prompt())
        .put("max_tokens", request.maxTokens())
        .put("stream", true);
    request.seed().ifPresent(seed -> body.put("seed", seed));
    if (!request.stop().isEmpty()) {
      ArrayNode stop = body.putArray("stop");
      request.stop().forEach(stop::add);
    }
    HttpRequest.Builder http = HttpRequest.newBuilder(uri)
        .header("Content-Type", "application/json")
        .header("Accept", "text/event-stream")
        .header("X-Request-Id", request.requestId())
        .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
    authorization.ifPresent(value -> http.header("Authorization", value));
    // Cold: nothing is sent before the source is materialized.
    return Source.lazySource(() -> Source.completionStage(
            client.sendAsync(http.build(), HttpResponse.BodyHandlers.ofInputStream())))
        .flatMapConcat(this::tokens)
        .mapMaterializedValue(ignored -> NotUsed.getInstance());
  }

  private Source<String, NotUsed> tokens(HttpResponse<InputStream> response) {
    Source<ByteString, NotUsed> bytes = StreamConverters.fromInputStream(response::body)
        .mapMaterializedValue(ignored -> NotUsed.getInstance());
    if (response.statusCode() != 200) {
      return bytes
          .fold(ByteString.emptyByteString(), (error, chunk) -> error.size() >= MAX_ERROR_BYTES
              ? error : error.concat(chunk.take(MAX_ERROR_BYTES - error.size())))
          .<String>map(error -> {
            throw new IOException("the engine answered " + response.statusCode() + " on "
                + uri.getPath() + ": " + error.utf8String().strip());
          });
    }
    return bytes
        .via(Framing.delimiter(NEWLINE, MAX_EVENT_BYTES, FramingTruncation.ALLOW))
        .map(line -> line.utf8String().strip())
        .takeWhile(line -> !line.equals("data: [DONE]"))
        .mapConcat(CompletionsClient::text);
  }

  /** The text of one SSE line: empty for other fields, comments and usage-only events. */
  static List<String> text(String line) throws IOException {
    if (!line.startsWith("data:")) {
      return List.of();
    }
    JsonNode event = JSON.readTree(line.substring("data:".length()).strip());
    if (event.has("error")) {
      throw new IOException("the engine failed the request: " + event.get("error"));
    }
    String text = event.path("choices").path(0).path("text").asText("");
    return text.isEmpty() ? List.of() : List.of(text);
  }
}
