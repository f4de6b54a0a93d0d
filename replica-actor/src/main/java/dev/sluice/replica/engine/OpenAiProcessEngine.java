package dev.sluice.replica.engine;

import dev.sluice.core.config.EngineConfig;
import dev.sluice.core.http.ClusterToken;
import dev.sluice.core.metrics.PrometheusText;
import dev.sluice.core.process.ChildProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Engine {@code openai-process}: an external OpenAI-compatible server (vLLM's {@code vllm
 * serve}, SGLang, llama.cpp's {@code llama-server}, {@code sluice engine-sim}) run as a child
 * process of this node ({@link ChildProcess}: it never outlives the node, also on {@code kill
 * -9}). {@link #start()} launches it with its port and model filled in and completes once its
 * health path answers 200; {@link #stats()} come from its Prometheus metrics; {@link #exited()}
 * tells when it ends, crashed or stopped. Its output goes to logger {@code sluice.engine.output},
 * each line prefixed by the replica id.
 *
 * <pre>
 * engine_config:
 *   type: openai-process
 *   command: [vllm, serve, "{model}", --port, "{port}"]
 *   port: auto              # or a fixed port
 *   health_path: /health
 *   metrics_path: /metrics
 *   startup_timeout_s: 600
 *   num_gpus: 1             # its own GPU of the node's (sluice.replica.gpus)
 *   env: {HF_HOME: /data/hf}
 * </pre>
 */
public final class OpenAiProcessEngine implements Engine {

  /**
   * The grace between SIGTERM and SIGKILL when stopping, if the caller has none: the default
   * of a deployment's {@code graceful_shutdown_timeout_s}.
   */
  public static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(20);
  private static final String LOOPBACK = "127.0.0.1";
  /** How old {@link #stats()} may be before a new scrape of the metrics path is started. */
  static final Duration SCRAPE_INTERVAL = Duration.ofSeconds(1);
  private static final Duration PROBE_INTERVAL = Duration.ofMillis(250);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
  /** Beyond the stop grace, how long a start waits for a stopping server's GPUs. */
  private static final Duration GPU_WAIT_MARGIN = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(OpenAiProcessEngine.class);
  private static final Logger OUTPUT = LoggerFactory.getLogger("sluice.engine.output");
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2))
      .build();
  /** Launching blocks briefly (until the child's PID is known): off the caller's thread. */
  private static final ExecutorService LAUNCHER = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task, "sluice-engine-launcher");
    thread.setDaemon(true);
    return thread;
  });
  private static final Executor PROBE_DELAY =
      CompletableFuture.delayedExecutor(PROBE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);

  private final String host;
  private final ClusterToken token;
  private final GpuPool gpus;
  private final EngineConfig config;
  private final String modelId;
  private final String name;
  private final Duration stopGrace;
  private final int port;
  private final URI health;
  private final URI metrics;
  private final CompletionsClient completions;
  private final CompletableFuture<Integer> exited = new CompletableFuture<>();
  private final AtomicBoolean scraping = new AtomicBoolean();
  private final AtomicLong scrapes = new AtomicLong();
  private CompletableFuture<Done> started;
  private volatile ChildProcess child;
  /** The GPUs the server of the current launch holds (null: none). */
  private volatile GpuPool.Lease devices;
  private volatile boolean stopped;
  private volatile EngineStats stats = ScrapedStats.NONE;
  private volatile long lastScrapeNanos = System.nanoTime() - SCRAPE_INTERVAL.toNanos();

  /**
   * @param config an {@code openai-process} engine config
   * @param modelId fills the {@code {model}} placeholder, and names the model in requests
   * @param name prefixes the engine's output in the log: the replica id
   * @param stopGrace the time between SIGTERM and SIGKILL when stopping (and when this JVM
   *     dies): the deployment's {@code graceful_shutdown_timeout_s}, else
   *     {@link #DEFAULT_STOP_GRACE}
   * @throws UncheckedIOException if {@code port: auto} finds no free loopback port
   */
  public OpenAiProcessEngine(EngineConfig config, String modelId, String name,
      Duration stopGrace) {
    this(config, modelId, name, stopGrace, LOOPBACK);
  }

  /**
   * @param host fills the {@code {host}} placeholder: the interface the replica's endpoint binds
   *     to, where ingresses on other nodes reach the server; health and metrics are read there
   *     (on loopback for a wildcard address)
   */
  public OpenAiProcessEngine(EngineConfig config, String modelId, String name,
      Duration stopGrace, String host) {
    this(config, modelId, name, stopGrace, host, ClusterToken.NONE);
  }

  /**
   * @param token the cluster token: sent to the server with every request of the replica's own
   *     (health, metrics, completions), and what {@code {cluster_token}} in an env value becomes
   */
  public OpenAiProcessEngine(EngineConfig config, String modelId, String name,
      Duration stopGrace, String host, ClusterToken token) {
    this(config, modelId, name, stopGrace, host, token, GpuPool.NONE);
  }

  /**
   * @param gpus the node's GPUs: a server of a config with {@code num_gpus} takes its own at
   *     each launch (it fails to start when too few are free) and gives them back once it exited
   */
  public OpenAiProcessEngine(EngineConfig config, String modelId, String name,
      Duration stopGrace, String host, ClusterToken token, GpuPool gpus) {
    this.token = Objects.requireNonNull(token, "token");
    this.gpus = Objects.requireNonNull(gpus, "gpus");
    this.host = Objects.requireNonNull(host, "host");
    this.config = Objects.requireNonNull(config, "config");
    this.modelId = Objects.requireNonNull(modelId, "modelId");
    this.name = Objects.requireNonNull(name, "name");
    this.stopGrace = Objects.requireNonNull(stopGrace, "stopGrace");
    if (!config.type().equals(EngineConfig.OPENAI_PROCESS) || config.command().isEmpty()) {
      throw new IllegalArgumentException("engine_config: type '" + config.type() + "', command "
          + config.command() + " (expected: type openai-process with a command)");
    }
    if (stopGrace.isNegative()) {
      throw new IllegalArgumentException("stopGrace: " + stopGrace + " (expected: >= 0)");
    }
    this.port = config.port() == EngineConfig.AUTO_PORT ? freeLoopbackPort() : config.port();
    String checked = host.equals("0.0.0.0") || host.equals("::") || host.isEmpty() ? LOOPBACK
        : host.contains(":") ? "[" + host + "]" : host;
    String base = "http://" + checked + ":" + port;
    this.health = URI.create(base + config.healthPath());
    this.metrics = URI.create(base + config.metricsPath());
    this.completions = new CompletionsClient(HTTP, URI.create(base + "/v1/completions"), modelId,
        token.authorization());
  }

  /** The port the engine listens on (on loopback): fixed, or the one found for {@code auto}. */
  public int port() {
    return port;
  }

  /** Completions go straight to the server's port (the ingress's data path). */
  @Override
  public int dataPort() {
    return port;
  }

  /** The command line as launched: placeholders filled in. */
  public List<String> command() {
    return config.command().stream()
        .map(arg -> arg.replace(EngineConfig.PORT_PLACEHOLDER, Integer.toString(port))
            .replace(EngineConfig.MODEL_PLACEHOLDER, modelId)
            .replace(EngineConfig.HOST_PLACEHOLDER, host))
        .toList();
  }

  /**
   * Launches the server and completes when its health path answers 200. Fails if it exits
   * first (with its exit code and last lines of output), if it does not answer 200 within
   * {@code startup_timeout_s} (it is stopped then), or if {@link #stop()} came first. Calling
   * it again returns the same outcome.
   */
  @Override
  public synchronized CompletionStage<Done> start() {
    if (started == null) {
      started = new CompletableFuture<>();
      CompletableFuture.runAsync(this::launch, LAUNCHER).whenComplete((ignored, failure) -> {
        if (failure != null) {
          started.completeExceptionally(failure.getCause() != null ? failure.getCause()
              : failure);
        }
      });
    }
    return started.minimalCompletionStage();
  }

  /**
   * The env with {@code {cluster_token}} filled in (never logged), and the server's own GPUs
   * when it has any.
   */
  private java.util.Map<String, String> environment(GpuPool.Lease devices) {
    java.util.Map<String, String> env = new java.util.LinkedHashMap<>();
    config.env().forEach((key, value) -> {
      if (value.contains(EngineConfig.CLUSTER_TOKEN_PLACEHOLDER)) {
        String bearer = token.authorization().orElseThrow(() -> new IllegalStateException(
            "engine_config.env." + key + ": " + EngineConfig.CLUSTER_TOKEN_PLACEHOLDER
                + " but no cluster token is set (sluice.core.cluster-token, env "
                + "SLUICE_CLUSTER_TOKEN)"));
        value = value.replace(EngineConfig.CLUSTER_TOKEN_PLACEHOLDER,
            bearer.substring("Bearer ".length()));
      }
      env.put(key, value);
    });
    if (devices != null) {  // the devices held win (the config may not name others)
      env.put(EngineConfig.GPU_VARIABLE, devices.visibleDevices());
    }
    return env;
  }

  private void launch() {
    if (stopped) {
      throw new IllegalStateException("the engine was stopped before it started");
    }
    long since = System.nanoTime();
    List<String> command = command();
    // Taken for this launch and given back once the server has exited (it holds GPU memory
    // until then). Too few free: waits as long as a stopping server on this node may take to
    // exit (the controller may place a replacement as its predecessor stops), then fails the
    // start, saying who holds them.
    GpuPool.Lease devices = config.numGpus() > 0 ? gpus.acquire(config.numGpus(), name,
        stopGrace.plus(GPU_WAIT_MARGIN), () -> stopped) : null;
    log.info("Engine {}: starting {} (port {}{})", name, command, port,
        devices == null ? "" : ", GPUs " + devices.visibleDevices());
    ChildProcess launched;
    try {
      launched = ChildProcess.builder(command)
          .environment(environment(devices))
          .output(OUTPUT, name)
          .orphanGrace(stopGrace)
          .start();
    } catch (IOException | RuntimeException e) {
      if (devices != null) {
        devices.release();
      }
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
    if (devices != null) {
      this.devices = devices;
      launched.onExit().whenComplete((code, failure) -> devices.release());
    }
    synchronized (this) {
      child = launched;
      if (stopped) {
        launched.stop(stopGrace); // stop() came while launching: onExit fails the start
      }
    }
    launched.onExit().thenAccept(code -> onExit(launched, code));
    probe(launched, since, since + Duration.ofSeconds(config.startupTimeoutS()).toNanos());
  }

  /** Asks the health path until it answers 200, the deadline passes or the server exits. */
  private void probe(ChildProcess launched, long since, long deadline) {
    if (started.isDone() || !launched.isAlive()) {
      return; // onExit fails the start
    }
    long remaining = deadline - System.nanoTime();
    if (remaining <= 0) {
      started.completeExceptionally(new IOException("the engine did not answer 200 on " + health
          + " within startup_timeout_s " + config.startupTimeoutS() + " s; stopping it. Its last "
          + "output:\n" + launched.lastOutput()));
      stopped = true; // by us: its exit is no crash
      launched.stop(stopGrace);
      return;
    }
    status(health, Duration.ofNanos(Math.min(remaining, REQUEST_TIMEOUT.toNanos())))
        .whenComplete((status, failure) -> {
          if (failure == null && status == 200) {
            if (started.complete(Done.getInstance())) {
              log.info("Engine {}: healthy after {} ms, pid {}, port {}", name,
                  TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since), launched.pid(), port);
            }
          } else {
            PROBE_DELAY.execute(() -> probe(launched, since, deadline));
          }
        });
  }

  private void onExit(ChildProcess launched, int code) {
    exited.complete(code);
    if (started.completeExceptionally(new IOException((stopped ? "the engine was stopped"
        : "the engine exited with code " + code) + " before it answered 200 on " + health
        + "; its last output:\n" + launched.lastOutput()))) {
      if (stopped) {
        log.info("Engine {}: stopped while starting (exit code {})", name, code);
      }
      return;
    }
    if (stopped) {
      log.info("Engine {}: stopped (exit code {})", name, code);
    } else {
      log.warn("Engine {}: exited with code {}; its last output:\n{}", name, code,
          launched.lastOutput());
    }
  }

  /**
   * Completes with the server's exit code when it ends, whether it crashed or was stopped (128 +
   * the signal's number if a signal ended it, e.g. 143 for SIGTERM). Never completes if it was
   * never launched.
   */
  @Override
  public CompletionStage<Integer> exited() {
    return exited.minimalCompletionStage();
  }

  /** The GPUs the server holds: from its launch until it has exited. */
  @Override
  public List<String> gpus() {
    GpuPool.Lease held = devices;
    return held == null || held.released() ? List.of() : held.devices();
  }

  /** The server's PID once launched. */
  public OptionalLong pid() {
    ChildProcess current = child;
    return current == null ? OptionalLong.empty() : OptionalLong.of(current.pid());
  }

  /** False while not running, when the server has exited, or its health path is not 200. */
  @Override
  public CompletionStage<Boolean> healthy() {
    ChildProcess current = child;
    if (current == null || !current.isAlive() || stopped) {
      return CompletableFuture.completedFuture(false);
    }
    return status(health, REQUEST_TIMEOUT)
        .handle((status, failure) -> failure == null && status == 200);
  }

  /**
   * The latest values scraped from the metrics path; a new scrape starts in the background
   * when they are older than {@link #SCRAPE_INTERVAL}. Zeros until the first scrape, and for
   * what the server does not export.
   */
  @Override
  public EngineStats stats() {
    long now = System.nanoTime();
    ChildProcess current = child;
    if (current != null && current.isAlive() && started.isDone()
        && now - lastScrapeNanos >= SCRAPE_INTERVAL.toNanos() && scraping.compareAndSet(false,
        true)) {
      lastScrapeNanos = now;
      HTTP.sendAsync(get(metrics, REQUEST_TIMEOUT), HttpResponse.BodyHandlers.ofString())
          .whenComplete((response, failure) -> {
            if (failure != null) {
              log.debug("Engine {}: scraping {} failed: {}", name, metrics, failure.toString());
            } else if (response.statusCode() != 200) {
              stats = ScrapedStats.NONE;
            } else {
              PrometheusText.Scrape scrape = PrometheusText.parse(response.body());
              if (scrape.malformedLines() > 0) {
                log.debug("Engine {}: {} malformed line(s) on {}", name, scrape.malformedLines(),
                    metrics);
              }
              stats = ScrapedStats.of(scrape);
            }
            scrapes.incrementAndGet();
            scraping.set(false);
          });
    }
    return stats;
  }

  /**
   * The tokens of one request through the server's {@code /v1/completions} (streamed; each
   * text delta is a token). For the replica's relayed path; the direct path reaches the
   * server's port itself.
   */
  @Override
  public Source<String, NotUsed> generate(GenerationRequest request) {
    Objects.requireNonNull(request, "request");
    return completions.generate(request);
  }

  /**
   * SIGTERM to the server (and its process group), SIGKILL after the stop grace; completes
   * when it is gone. Idempotent; a start still under way fails.
   */
  @Override
  public CompletionStage<Done> stop() {
    ChildProcess current;
    synchronized (this) {
      stopped = true;
      current = child;
      if (started == null) {
        started = CompletableFuture.failedFuture(
            new IllegalStateException("the engine was stopped before it started"));
      }
    }
    if (current == null) {
      return CompletableFuture.completedFuture(Done.getInstance());
    }
    return current.stop(stopGrace).thenApply(code -> Done.getInstance());
  }

  /** Scrapes finished, successful or not (for tests). */
  long scrapes() {
    return scrapes.get();
  }

  /** The time between SIGTERM and SIGKILL when stopping. */
  Duration stopGrace() {
    return stopGrace;
  }

  private CompletableFuture<Integer> status(URI uri, Duration timeout) {
    return HTTP.sendAsync(get(uri, timeout), HttpResponse.BodyHandlers.discarding())
        .thenApply(HttpResponse::statusCode);
  }

  private HttpRequest get(URI uri, Duration timeout) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout).GET();
    token.authorization().ifPresent(value -> request.header("Authorization", value));
    return request.build();
  }

  private static int freeLoopbackPort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("port: auto: no free loopback port", e);
    }
  }
}
