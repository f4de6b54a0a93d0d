package dev.sluice.deploy.haproxy;

import com.typesafe.config.Config;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.http.ClusterToken;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.ingress.edge.ApiKeys;
import dev.sluice.router.spi.RequestRouters;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HAProxy data plane of one ingress node: writes the Lua action (only when its content
 * changed) and {@code haproxy.cfg}, starts HAProxy, and on every replica-set change renders the
 * config again and, when the text differs, checks it ({@code haproxy -c}) and reloads HAProxy
 * (master-worker: no connection dropped), done when HAProxy's new worker serves the new servers.
 * A config HAProxy refuses, or a reload its worker does not take up within the start timeout, is
 * logged and counted, and the running config stays. Syncs run one at a time on their own thread,
 * never on an actor's.
 */
public final class HaproxyDataPlane implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HaproxyDataPlane.class);

  private final HaproxyBinary binary;
  private final RenderSettings base;
  /** HAProxy's own metrics frontend, appended to every config; empty when off. */
  private final String metricsFrontend;
  private final java.util.Optional<String> metricsUrl;
  private final ApiKeys apiKeys;
  private final Path dir;
  private final boolean ownDir;
  private final Path config;
  private final Path lua;
  private final ExecutorService syncs;
  private final Counter reloads;
  private final Gauge servers;
  private HaproxyProcess process;
  private Duration reloadTimeout = Duration.ofSeconds(10);
  /** The config HAProxy's newest worker is known to run (confirmed after each reload). */
  private String rendered = "";
  /** The replica sets of the last change (null before the first). */
  private volatile List<ReplicaSet> lastSets;
  /** The ids of the replicas HAProxy's newest worker has servers for (confirmed). */
  private volatile Set<String> serving = Set.of();
  /** Set by {@link #close}: no reload starts after it. */
  private volatile boolean closing;

  private HaproxyDataPlane(HaproxyBinary binary, RenderSettings base, ApiKeys apiKeys,
      Path dir, boolean ownDir, SluiceMetrics metrics, HaproxySettings settings) {
    this.binary = binary;
    this.metricsFrontend = settings.metricsEnabled()
        ? HaproxyConfig.metricsFrontend(settings.metricsHost(), settings.metricsPort()) : "";
    this.metricsUrl = settings.metricsEnabled() ? java.util.Optional.of("http://"
        + settings.metricsHost() + ":" + settings.metricsPort() + "/metrics")
        : java.util.Optional.empty();
    this.base = base;
    this.apiKeys = apiKeys;
    this.dir = dir;
    this.ownDir = ownDir;
    this.config = dir.resolve("haproxy.cfg");
    this.lua = dir.resolve("sluice_route.lua");
    this.syncs = Executors.newSingleThreadExecutor(runnable -> {
      Thread thread = new Thread(runnable, "haproxy-sync");
      thread.setDaemon(true);
      return thread;
    });
    this.reloads = metrics.counter("haproxy_reloads_total",
        "Reloads of the HAProxy data plane after a replica-set change, by outcome (ok; refused: "
            + "HAProxy rejected the new config and kept the running one).", "outcome");
    this.servers = metrics.gauge("haproxy_servers",
        "Replica servers in the HAProxy data plane's running config.");
  }

  /**
   * Starts HAProxy from {@code config}'s {@code sluice.haproxy}, {@code sluice.ingress} and
   * cluster-token settings. {@code localRouterPort}: this node's router endpoint, if it has one;
   * {@code ingress}: the node's own ingress; {@code apiKeys}: the keys the node's ingress
   * accepts, which HAProxy checks too.
   */
  public static HaproxyDataPlane start(Config config, java.util.Optional<Integer> localRouterPort,
      java.net.InetSocketAddress ingress, ApiKeys apiKeys, SluiceMetrics metrics)
      throws IOException, InterruptedException {
    HaproxySettings settings = HaproxySettings.fromConfig(config);
    HaproxyBinary binary = HaproxyBinary.locate(settings.binary());
    if (settings.metricsEnabled() && !binary.prometheusExporter()) {
      throw new IllegalStateException("sluice.haproxy.metrics-port: " + binary.path()
          + " (HAProxy " + binary.version() + ") is built without the Prometheus exporter "
          + "(haproxy -vv does not say \"Built with the Prometheus exporter\"): use a build "
          + "with USE_PROMEX=1, such as Debian's, or set it to -1");
    }
    List<java.net.URI> routers = routerAddresses(settings, localRouterPort);
    String token = ClusterToken.fromConfig(config).secret();
    int forwardLimit = config.getBoolean("sluice.ingress.forward-body")
        ? Math.toIntExact(config.getBytes("sluice.ingress.forward-body-limit")) : 0;
    RenderSettings base = new RenderSettings(settings.host(), settings.port(),
        RouterAddresses.host(routers.get(0)), routers.get(0).getPort(),
        config.getDuration("sluice.ingress.route-timeout").toMillis() / 1000.0, token,
        config.getString("sluice.ingress.session-header"), Map.of(), forwardLimit,
        config.getDuration("sluice.ingress.drain-timeout").toSeconds(), apiKeys.enabled(),
        apiKeys.hexDigests(), config.getBytes("sluice.ingress.max-request-bytes"), Map.of(),
        "", 0, HaproxyTimeouts.fromIngress(config), routers.subList(1, routers.size()).stream()
            .map(RouterAddresses::hostPort).toList()).withIngress(ingress);
    Path dir = settings.dir().isPresent()
        ? Files.createDirectories(settings.dir().get())
        : Files.createTempDirectory("sluice-haproxy");
    HaproxyDataPlane plane = new HaproxyDataPlane(binary, base, apiKeys, dir,
        settings.dir().isEmpty(), metrics, settings);
    try {
      plane.launch(settings);
    } catch (IOException | RuntimeException | InterruptedException e) {
      plane.close();
      throw e;
    }
    return plane;
  }

  private static List<java.net.URI> routerAddresses(HaproxySettings settings,
      java.util.Optional<Integer> localRouterPort) {
    if (settings.router().isEmpty()) {
      return List.of(java.net.URI.create("tcp://127.0.0.1:" + localRouterPort.orElseThrow(() ->
          new IllegalArgumentException("sluice.haproxy.router: this node has no router endpoint "
              + "(sluice.router.http.port = -1); set the host:port of another node's router "
              + "endpoint (or several, separated by commas)"))));
    }
    return RouterAddresses.parse("sluice.haproxy.router", settings.router());
  }

  private void launch(HaproxySettings settings) throws IOException, InterruptedException {
    reloadTimeout = settings.startTimeout();
    HaproxyConfig.writeFiles(lua, base.timeouts());
    rendered = HaproxyConfig.render(base, List.of(), lua) + metricsFrontend;
    writeConfig(config, rendered);
    servers.set(0);
    process = HaproxyProcess.start(binary, config, dir, settings.host(), settings.port(),
        settings.startTimeout());
    log.info("HAProxy {} data plane listening on http://{}:{} (router {}:{}{}; config {})",
        binary.version(), settings.host(), settings.port(), base.routerHost(),
        base.routerPort(), base.moreRouters().isEmpty() ? ""
            : ", then " + String.join(", ", base.moreRouters()), config);
    metricsUrl.ifPresent(url -> log.info("HAProxy's own metrics at {}", url));
  }

  /** The replicas HAProxy can pin requests to now (its newest worker has their servers). */
  public Set<String> servingReplicas() {
    return serving;
  }

  /** Where HAProxy serves its own Prometheus metrics, if it does. */
  public java.util.Optional<String> metricsUrl() {
    return metricsUrl;
  }

  /** The deployments' current sets changed: sync HAProxy to them (in order, off this thread). */
  public void onReplicaSets(Collection<ReplicaSet> sets) {
    List<ReplicaSet> copy = List.copyOf(sets);
    lastSets = copy;
    later(() -> sync(copy));
  }

  /** The API keys changed (a reloaded keys file): sync HAProxy to them, off this thread. */
  public void onApiKeysChanged() {
    later(() -> {
      List<ReplicaSet> sets = lastSets;
      if (sets != null) {
        sync(sets);
      }
    });
  }

  /** Runs {@code task} on the sync thread, in order; not once closing. */
  private void later(Runnable task) {
    try {
      syncs.execute(task);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      log.debug("HAProxy data plane closing: no more syncs");
    }
  }

  private void sync(List<ReplicaSet> sets) {
    if (closing) {
      return;
    }
    Map<String, String> routes = new TreeMap<>();
    sets.forEach(set -> routes.put(set.routePrefix(), set.deployment().app()));
    Map<String, List<String>> models = new TreeMap<>();
    sets.forEach(set -> models.computeIfAbsent(set.deployment().app(), app -> new ArrayList<>())
        .addAll(set.modelIds()));
    Set<String> promptApps = sets.stream()
        .filter(set -> RequestRouters.readsPrompt(set.routerClass()))
        .map(set -> set.deployment().app()).collect(Collectors.toSet());
    RenderSettings settings = base.withRoutes(routes).withModels(models)
        .withApiKeys(apiKeys.enabled(), apiKeys.hexDigests()).withPromptApps(promptApps);
    List<HaproxyConfig.Replica> replicas = sets.stream()
        .flatMap(set -> set.replicas().stream())
        .map(r -> new HaproxyConfig.Replica(r.id().toString(), r.host(), r.completionPort(),
            r.port()))
        .sorted(Comparator.comparing(HaproxyConfig.Replica::id)).toList();
    String next = HaproxyConfig.render(settings, replicas, lua) + metricsFrontend;
    if (next.equals(rendered)) {
      return;
    }
    Path candidate = dir.resolve("haproxy.cfg.next");
    try {
      writeConfig(candidate, next);
      HaproxyProcess.check(binary, candidate);
      Files.move(candidate, config, StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
      process.reload();
      Set<String> names = replicas.stream().map(replica -> HaproxyConfig.serverName(replica.id()))
          .collect(Collectors.toCollection(TreeSet::new));
      names.add(HaproxyConfig.DYNAMIC_SERVER);
      process.awaitServers(HaproxyConfig.BACKEND, names, reloadTimeout);
      rendered = next;
      serving = replicas.stream().map(HaproxyConfig.Replica::id).collect(Collectors.toSet());
      reloads.labelValues("ok").inc();
      servers.set(replicas.size());
      log.info("HAProxy reloaded: {} replica servers {}", replicas.size(),
          replicas.stream().map(HaproxyConfig.Replica::id).toList());
    } catch (IOException e) {
      reloads.labelValues("refused").inc();
      log.error("HAProxy keeps its running config; the new one failed: {}", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Where HAProxy's files are. */
  public Path dir() {
    return dir;
  }

  public HaproxyProcess process() {
    return process;
  }

  /** The config HAProxy runs now. */
  public String runningConfig() {
    try {
      return syncs.submit(() -> rendered).get();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static void writeIfChanged(Path file, String content) throws IOException {
    if (Files.exists(file) && Files.readString(file).equals(content)) {
      return;
    }
    Files.writeString(file, content);
  }

  private static void writeConfig(Path file, String content) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(file, PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, content);
  }

  /** Soft-stops HAProxy (streams in flight finish, up to the drain timeout). */
  @Override
  public void close() throws InterruptedException {
    // A reload under way finishes first (its new worker up): a soft stop that reached the master
    // mid-reload left the new worker without its sockets and the node's stop waiting the whole
    // drain timeout (seen when replica nodes left as their control node stopped).
    closing = true;
    syncs.shutdown();
    if (!syncs.awaitTermination(reloadTimeout.toSeconds() + 5, TimeUnit.SECONDS)) {
      syncs.shutdownNow();
      syncs.awaitTermination(10, TimeUnit.SECONDS);
    }
    if (process != null) {
      process.stop(HaproxyConfig.FRONTEND, Duration.ofSeconds(base.drainSeconds()));
    }
    if (ownDir) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      } catch (IOException | UncheckedIOException e) {
        log.debug("Could not remove {}: {}", dir, e.toString());
      }
    }
  }
}
