package dev.sluice.controller.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * The dashboard's HTTP side on the controller API's port: the page and its assets, read once
 * from the jar (uPlot from its WebJar: nothing from a CDN, it works offline), and
 * {@code GET /api/events}: Server-Sent Events, first {@code history} (the last 5 minutes of the
 * charts), then a {@code snapshot} every second.
 */
public final class DashboardRoutes {

  static final Duration EVENT_INTERVAL = Duration.ofSeconds(1);
  private static final String PAGE = "dev/sluice/controller/dashboard/";
  private static final String UPLOT = "META-INF/resources/webjars/uplot/1.6.30/dist/";

  private record Asset(ContentType type, byte[] bytes) {}

  private final DashboardFeed feed;
  private final Map<String, Asset> assets;

  public DashboardRoutes(DashboardFeed feed) {
    this.feed = feed;
    ContentType html = ContentTypes.TEXT_HTML_UTF8;
    ContentType js = ContentTypes.create(MediaTypes.APPLICATION_JAVASCRIPT,
        org.apache.pekko.http.javadsl.model.HttpCharsets.UTF_8);
    ContentType css = ContentTypes.create(MediaTypes.TEXT_CSS,
        org.apache.pekko.http.javadsl.model.HttpCharsets.UTF_8);
    Asset page = asset(PAGE + "index.html", html);
    this.assets = Map.of(
        "/", page,
        "/index.html", page,
        "/dashboard.js", asset(PAGE + "dashboard.js", js),
        "/dashboard.css", asset(PAGE + "dashboard.css", css),
        "/vendor/uPlot.iife.min.js", asset(UPLOT + "uPlot.iife.min.js", js),
        "/vendor/uPlot.min.css", asset(UPLOT + "uPlot.min.css", css));
  }

  /** Whether {@code path} is a static asset (served without the cluster token: no data). */
  public boolean isAsset(String path) {
    return assets.containsKey(path);
  }

  /** The answer for a dashboard route, or empty when {@code request} is not one. */
  public Optional<CompletionStage<HttpResponse>> handle(HttpRequest request) {
    String path = request.getUri().path();
    if (!request.method().equals(HttpMethods.GET)) {
      return Optional.empty();
    }
    Asset asset = assets.get(path);
    if (asset != null) {
      return Optional.of(CompletableFuture.completedFuture(HttpResponse.create()
          .addHeader(RawHeader.create("cache-control", "no-cache"))
          .withEntity(HttpEntities.create(asset.type(), asset.bytes()))));
    }
    if (path.equals("/api/events")) {
      return Optional.of(CompletableFuture.completedFuture(events()));
    }
    return Optional.empty();
  }

  private HttpResponse events() {
    Source<ByteString, ?> first = Source.lazySingle(() -> event("history", feed.history()));
    Source<ByteString, ?> snapshots = Source.tick(Duration.ZERO, EVENT_INTERVAL, "tick")
        .map(tick -> event("snapshot", feed.latest()));
    return HttpResponse.create()
        .addHeader(RawHeader.create("cache-control", "no-cache"))
        .addHeader(RawHeader.create("x-accel-buffering", "no"))
        .withEntity(HttpEntities.createChunked(MediaTypes.TEXT_EVENT_STREAM.toContentType(),
            Source.single(ByteString.fromString("retry: 1000\n\n")).concat(first)
                .concat(snapshots)));
  }

  /** One SSE event; the JSON has no line breaks, so it is one {@code data:} line. */
  static ByteString event(String name, String json) {
    return ByteString.fromString("event: " + name + "\ndata: " + json + "\n\n");
  }

  private static Asset asset(String resource, ContentType type) {
    try (InputStream in = DashboardRoutes.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("dashboard asset missing from the jar: " + resource);
      }
      return new Asset(type, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
