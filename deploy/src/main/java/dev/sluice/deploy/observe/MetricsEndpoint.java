package dev.sluice.deploy.observe;

import dev.sluice.core.http.OpenAiParsingErrors;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.settings.ServerSettings;

/**
 * {@code GET /metrics} on every node ({@code sluice.metrics.host}:{@code port}): the JVM's
 * Prometheus registry written by the Prometheus client's own exposition writers (the text format,
 * or OpenMetrics when the scraper asks for it), JVM metrics included. Scrapes are written off the
 * HTTP threads on the actor system's dispatcher.
 */
public final class MetricsEndpoint {

  private static final AtomicBoolean JVM_METRICS = new AtomicBoolean();

  private final ActorSystem<?> system;
  private final PrometheusRegistry registry;
  private final ExpositionFormats formats = ExpositionFormats.init();

  public MetricsEndpoint(ActorSystem<?> system, PrometheusRegistry registry) {
    this.system = system;
    this.registry = registry;
    if (registry == PrometheusRegistry.defaultRegistry && JVM_METRICS.compareAndSet(false, true)) {
      JvmMetrics.builder().register(registry);
    }
  }

  public CompletionStage<ServerBinding> bind(String host, int port) {
    return Http.get(system).newServerAt(host, port)
        .withSettings(OpenAiParsingErrors.applyTo(ServerSettings.create(
            system.settings().config())))
        .bind(this::handle);
  }

  CompletionStage<HttpResponse> handle(HttpRequest request) {
    request.discardEntityBytes(system);
    String path = request.getUri().path();
    if (!path.equals("/metrics") && !path.equals("/")) {
      return CompletableFuture.completedFuture(HttpResponse.create().withStatus(404)
          .withEntity(ContentTypes.TEXT_PLAIN_UTF8, "Not found: " + path
              + " (metrics are at /metrics)\n"));
    }
    if (!request.method().equals(HttpMethods.GET) && !request.method().equals(HttpMethods.HEAD)) {
      return CompletableFuture.completedFuture(HttpResponse.create().withStatus(405)
          .addHeader(RawHeader.create("allow", "GET, HEAD"))
          .withEntity(ContentTypes.TEXT_PLAIN_UTF8, "Use GET /metrics\n"));
    }
    String accept = request.getHeader("accept").map(HttpHeader::value).orElse("");
    return CompletableFuture.supplyAsync(() -> scrape(accept), system.executionContext());
  }

  private HttpResponse scrape(String accept) {
    ExpositionFormatWriter writer = formats.findWriter(accept);
    if (!writer.isAvailable()) {
      writer = formats.getPrometheusTextFormatWriter();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
    try {
      writer.write(out, registry.scrape());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    ContentType type = ContentTypes.parse(writer.getContentType());
    return HttpResponse.create().withEntity(HttpEntities.create(type, out.toByteArray()));
  }
}
