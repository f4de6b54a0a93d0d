package dev.sluice.ingress.observe;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.metrics.SluiceMetrics;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class IngressObserverTest {

  @RegisterExtension
  final RequestLogLines lines = new RequestLogLines();

  private static IngressObserver observer(String format) {
    return IngressObserver.fromConfig(ConfigFactory.parseString(
            "sluice.ingress.request-log.format = " + format)
        .withFallback(ConfigFactory.load()), "direct");
  }

  private static double count(String route, String status, String reason) {
    var snapshot = SluiceMetrics.global().registry().scrape(name ->
        name.equals("sluice_ingress_requests"));
    return snapshot.stream().flatMap(s -> s.getDataPoints().stream())
        .filter(p -> p.getLabels().get("route").equals(route)
            && p.getLabels().get("data_path").equals("direct")
            && p.getLabels().get("status").equals(status)
            && p.getLabels().get("reason").equals(reason))
        .mapToDouble(p -> ((io.prometheus.metrics.model.snapshots.CounterSnapshot
            .CounterDataPointSnapshot) p).getValue())
        .findFirst().orElse(0);
  }

  @Test
  void oneLinePerRequestWrittenOffTheRequestsThreadAsJson() throws Exception {
    IngressObserver observer = observer("json");
    RequestTrace trace = observer.begin("req-42", "/llm/v1/chat/completions");
    observer.routed(trace, "llm#sim#abc");
    observer.head(trace, 200, null, true);
    byte[] body = "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n"
        .getBytes(StandardCharsets.UTF_8);
    trace.body(body, 0, body.length);
    observer.ended(trace, RequestTrace.Outcome.COMPLETED);
    observer.ended(trace, RequestTrace.Outcome.ABORTED);  // counted and logged once
    observer.close();
    assertThat(lines.list()).hasSize(1);
    ILoggingEvent line = lines.list().get(0);
    assertThat(line.getThreadName()).isEqualTo("sluice-request-log");
    JsonNode json = new ObjectMapper().readTree(line.getFormattedMessage());
    assertThat(json.get("request_id").asText()).isEqualTo("req-42");
    assertThat(json.get("route").asText()).isEqualTo("/v1/chat/completions");
    assertThat(json.get("replica").asText()).isEqualTo("llm#sim#abc");
    assertThat(json.get("status").asInt()).isEqualTo(200);
    assertThat(json.get("reason").isNull()).isTrue();
    assertThat(json.get("outcome").asText()).isEqualTo("completed");
    assertThat(json.get("tokens").asLong()).isEqualTo(1);
    assertThat(json.get("bytes").asLong()).isEqualTo(body.length);
    assertThat(json.get("ttft_ms").asDouble()).isGreaterThanOrEqualTo(0);
    assertThat(json.get("duration_ms").asDouble())
        .isGreaterThanOrEqualTo(json.get("ttft_ms").asDouble());
  }

  @Test
  void textLinesNameTheReasonAndARefusalCountsUnderIt() throws Exception {
    IngressObserver observer = observer("text");
    double before = count("/v1/completions", "503", "no_replicas");
    double ok = count("/v1/completions", "200", "none");
    RequestTrace trace = observer.begin("req-7", "/v1/completions");
    observer.routed(trace, null);
    observer.head(trace, 503, "no_replicas", false);
    observer.ended(trace, RequestTrace.Outcome.COMPLETED);
    observer.close();
    assertThat(count("/v1/completions", "503", "no_replicas")).isEqualTo(before + 1);
    assertThat(count("/v1/completions", "200", "none")).isEqualTo(ok);
    assertThat(lines.list()).singleElement().satisfies(line -> assertThat(
        line.getFormattedMessage()).contains("request_id=req-7", "status=503",
            "reason=no_replicas", "replica=-", "ttft_ms=-", "tokens=-"));
  }

  @Test
  void anAnswerThatIsNotAStreamHasNoTokenCountRatherThanZero() throws Exception {
    IngressObserver observer = observer("json");
    RequestTrace trace = observer.begin("req-9", "/v1/chat/completions");
    observer.routed(trace, "llm#sim#abc");
    observer.head(trace, 200, null, false);
    byte[] body = "{\"choices\":[{\"message\":{\"content\":\"x y\"}}]}"
        .getBytes(StandardCharsets.UTF_8);
    trace.body(body, 0, body.length);
    observer.ended(trace, RequestTrace.Outcome.COMPLETED);
    observer.close();
    JsonNode json = new ObjectMapper().readTree(lines.list().get(0).getFormattedMessage());
    assertThat(json.get("tokens").isNull()).as("tokens of %s", json).isTrue();
    assertThat(json.get("bytes").asLong()).isEqualTo(body.length);
  }

  @Test
  void aSilencedLoggerGetsNothingQueued() {
    lines.silence();
    IngressObserver observer = observer("text");
    assertThat(observer.logging()).isFalse();
    RequestTrace trace = observer.begin("req-8", "/v1/models");
    observer.head(trace, 200, null, false);
    observer.ended(trace, RequestTrace.Outcome.COMPLETED);
    observer.close();
    assertThat(lines.list()).isEmpty();
  }

  @Test
  void aBadFormatIsNamed() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> observer("xml"))
        .hasMessageContaining("sluice.ingress.request-log.format")
        .hasMessageContaining("text or json");
  }

  @Test
  void millisecondsHaveTwoDecimals() {
    org.assertj.core.api.Assertions.assertThat(RequestLog.ms(12.345)).isEqualTo("12.35");
    org.assertj.core.api.Assertions.assertThat(RequestLog.ms(0.05)).isEqualTo("0.05");
    org.assertj.core.api.Assertions.assertThat(RequestLog.ms(7)).isEqualTo("7.00");
    org.assertj.core.api.Assertions.assertThat(RequestLog.ms(-1)).isEqualTo("-");
  }

  @Test
  void reasonsAreBoundedLabels() {
    org.assertj.core.api.Assertions.assertThat(IngressObserver.reasonLabel(null)).isEqualTo("none");
    org.assertj.core.api.Assertions.assertThat(IngressObserver.reasonLabel("no_replicas"))
        .isEqualTo("no_replicas");
    org.assertj.core.api.Assertions.assertThat(IngressObserver.reasonLabel("a-replica-said"))
        .isEqualTo("other");
  }

  @Test
  void routesAreBoundedLabels() {
    assertThat(IngressObserver.route("/v1/chat/completions")).isEqualTo("/v1/chat/completions");
    assertThat(IngressObserver.route("/app/v1/completions")).isEqualTo("/v1/completions");
    assertThat(IngressObserver.route("/v1/chat/completions/../../etc")).isEqualTo("other");
    assertThat(IngressObserver.route("/" + "x".repeat(100))).isEqualTo("other");
  }
}
