package dev.sluice.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Predicate;

/** Reads the dashboard's event stream ({@code GET /api/events}) of a node's controller API. */
final class DashboardEvents {

  private static final ObjectMapper JSON = new ObjectMapper();

  private DashboardEvents() {}

  /**
   * The {@code totals} of the first snapshot that satisfies {@code wanted}; fails after
   * {@code deadline} with the last totals seen.
   */
  static JsonNode awaitTotals(int apiPort, Duration deadline, Predicate<JsonNode> wanted)
      throws Exception {
    HttpResponse<InputStream> response = TestNodes.HTTP.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + apiPort + "/api/events")).timeout(deadline).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    long end = System.nanoTime() + deadline.toNanos();
    JsonNode last = null;
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(),
        StandardCharsets.UTF_8))) {
      String event = "";
      String line;
      while (System.nanoTime() - end < 0 && (line = reader.readLine()) != null) {
        if (line.startsWith("event: ")) {
          event = line.substring(7);
        } else if (line.startsWith("data: ") && event.equals("snapshot")) {
          last = JSON.readTree(line.substring(6)).path("totals");
          if (wanted.test(last)) {
            return last;
          }
        }
      }
    }
    throw new AssertionError("no dashboard snapshot as wanted within " + deadline.toSeconds()
        + " s; the last totals: " + last);
  }
}
