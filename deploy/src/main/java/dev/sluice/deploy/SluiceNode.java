package dev.sluice.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.sluice.capacity.CapacityQueue;
import dev.sluice.capacity.CapacityQueueSettings;
import dev.sluice.controller.Controller;
import dev.sluice.controller.ControllerSettings;
import dev.sluice.controller.api.ApiGuard;
import dev.sluice.controller.api.ControllerApi;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.http.ClusterToken;
import dev.sluice.core.metrics.ActorMetrics;
import dev.sluice.core.metrics.CountingMailbox;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.deploy.haproxy.HaproxyDataPlane;
import dev.sluice.deploy.haproxy.HaproxySettings;
import dev.sluice.deploy.haproxy.HaproxySync;
import dev.sluice.deploy.observe.MetricsEndpoint;
import dev.sluice.deploy.observe.NodeObserver;
import dev.sluice.ingress.IngressBinding;
import dev.sluice.ingress.IngressServer;
import dev.sluice.ingress.IngressSettings;
import dev.sluice.ingress.edge.ApiKeys;
import dev.sluice.ingress.ReplicaDirectory;
import dev.sluice.replica.NodeAgent;
import dev.sluice.replica.ReplicaNodeSettings;
import dev.sluice.replica.engine.GpuPool;
import dev.sluice.router.LLMRouter;
import dev.sluice.router.RouterSettings;
import dev.sluice.router.http.RouterHttpEndpoint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import org.apache.pekko.Done;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.ClusterSingletonSettings;
import org.apache.pekko.cluster.typed.SingletonActor;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Sluice node: an actor system in the cluster with the components of its roles. The only
 * place where modules are wired together.
 */
public final class SluiceNode implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SluiceNode.class);
  private static final Duration STARTUP = Duration.ofSeconds(30);
  private static final Duration UNBIND_DEADLINE = Duration.ofSeconds(5);
  /** The router runs on the splice's threads when it asks from them (LoopDispatcher). */
  private static final String ROUTER_DISPATCHER = "sluice.ingress.splice.router-dispatcher";

  private final ActorSystem<SpawnProtocol.Command> system;
  private final NodeOptions options;
  private final Optional<ApplicationsConfig> apps;
  private final ActorRef<LLMRouter.Command> router;
  private final ActorRef<CapacityQueue.Command> capacityQueue;
  private final Optional<ActorRef<Controller.Command>> controller;
  private final Optional<IngressBinding> ingressBinding;
  private final Optional<ServerBinding> routerBinding;
  private final Optional<ServerBinding> apiBinding;
  private final Optional<ServerBinding> metricsBinding;
  private Optional<IngressBinding> relayedBinding = Optional.empty();
  private Optional<HaproxyDataPlane> haproxy = Optional.empty();
  private final ReplicaSetView ingressView = new ReplicaSetView();

  private SluiceNode(NodeOptions options) throws Exception {
    this.options = options;
    Config config = config(options);
    // Tokens and the API's TLS folder checked before the node joins: a mistake stops it naming
    // the setting.
    boolean clusterToken = ClusterToken.fromConfig(config).enabled();
    ApiGuard.Credential apiCredential = ApiGuard.fromConfig(config).credential();
    Optional<SSLContext> apiTls = options.has(Role.CONTROL) ? apiTls(config) : Optional.empty();
    Optional<IngressSettings> ingressSettings = options.has(Role.INGRESS)
        ? Optional.of(IngressSettings.fromConfig(config)) : Optional.empty();
    StrictSecurity.enforce(config, options.roles(), clusterToken, apiCredential,
        apiTls.isPresent(), ingressSettings);
    this.system = ActorSystem.create(SpawnProtocol.create(), "sluice", config);
    // Pekko HTTP's client pools (health checks, the relayed path) stop before the actor system
    // does: left to the system's own stop, a live pool may be stopped before Pekko HTTP asks it
    // to, and logs "connection pool ... has shut down unexpectedly" with a stack trace on an
    // ordinary Ctrl-C.
    CoordinatedShutdown.get(system).addTask(
        CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "sluice-http-pools",
        () -> org.apache.pekko.http.javadsl.Http.get(system).shutdownAllConnectionPools()
            .thenApply(unit -> Done.getInstance()));
    try {
      ClusterFormation.join(system, options.seedNodes());
      log.info("Node {} joining with roles {}; singletons (controller, llm-router, "
          + "capacity-queue) run on the oldest node with role control", system.address(),
          options.roles());
      Exposure.logRemoting(config);
      this.metricsBinding = bindMetrics(config);
      spawn(NodeObserver.create(SluiceMetrics.global(),
          config.getDuration("sluice.metrics.stats-interval")), "node-observer");
      this.apps = options.has(Role.CONTROL) ? Optional.of(AppConfigs.load(options.appConfig(),
          ControllerSettings.fromConfig(config).maxReplicasPerDeployment())) : Optional.empty();
      this.capacityQueue = ClusterSingleton.get(system).init(
          SingletonActor.of(ActorMetrics.instrument("capacity-queue",
                  Behaviors.supervise(CapacityQueue.create(
                      CapacityQueueSettings.fromConfig(config)))
                  .onFailure(SupervisorStrategy.restartWithBackoff(
                      Duration.ofSeconds(1), Duration.ofSeconds(10), 0.2))), "capacity-queue")
              .withProps(CountingMailbox.selector("capacity-queue"))
              .withStopMessage(CapacityQueue.Stop.INSTANCE)
              .withSettings(controlRole()));
      RouterSettings routerSettings = RouterSettings.fromConfig(config);
      this.router = ClusterSingleton.get(system).init(
          SingletonActor.of(ActorMetrics.instrument("llm-router",
                  Behaviors.supervise(LLMRouter.create(SluiceMetrics.global(),
                      Optional.of(capacityQueue), routerSettings.defaultRouteBudget()))
                  .onFailure(SupervisorStrategy.restartWithBackoff(
                      Duration.ofMillis(200), Duration.ofSeconds(5), 0.2))), "llm-router")
              .withProps(CountingMailbox.selector("llm-router")
                  .withDispatcherFromConfig(ROUTER_DISPATCHER))
              .withStopMessage(LLMRouter.Stop.INSTANCE)
              .withSettings(controlRole()));
      ControllerSettings controllerSettings = ControllerSettings.fromConfig(config);
      this.controller = apps.map(desired -> ClusterSingleton.get(system).init(
          SingletonActor.of(ActorMetrics.instrument("controller",
                  Behaviors.supervise(Controller.create(controllerSettings, desired))
                  .onFailure(SupervisorStrategy.restartWithBackoff(
                      Duration.ofSeconds(1), Duration.ofSeconds(10), 0.2))), "controller")
              .withProps(CountingMailbox.selector("controller"))
              .withStopMessage(Controller.Stop.INSTANCE)
              .withSettings(controlRole())));
      this.apiBinding = controller.isPresent() && controllerSettings.apiPort() >= 0
          ? Optional.of(bindApi(controller.get(), controllerSettings, apiTls))
          : Optional.empty();
      if (apiBinding.isPresent()) {
        log.info("Controller API listening on {}{}", apiBinding.get().localAddress(),
            apiTls.isPresent() ? " (HTTPS)" : "");
      }
      if (options.has(Role.REPLICA)) {
        String host = config.getString("pekko.remote.artery.canonical.hostname");
        GpuPool.get(system);  // its setting read now: a mistake stops the node, not each replica
        spawn(ActorMetrics.instrument("node-agent",
            NodeAgent.create(ReplicaNodeSettings.fromConfig(config, host))), "node-agent",
            CountingMailbox.selector("node-agent"));
      }
      this.routerBinding = servesRouterEndpoint(options.roles(), config)
          ? bindRouter(routerSettings) : Optional.empty();
      if (ingressSettings.isPresent()) {
        IngressSettings settings = ingressSettings.get();
        spawn(ReplicaDirectory.create(ingressView), "replica-directory");
        IngressBinding binding = await(IngressServer.start(system, router, settings, ingressView,
            Optional.of(capacityQueue), FatalErrors::exitNode));
        Duration drain = config.getDuration("sluice.ingress.drain-timeout");
        binding.addToCoordinatedShutdown(drain, system);
        this.ingressBinding = Optional.of(binding);
        log.info("Ingress listening on {}; direct streaming {}; {}", binding.localAddress(),
            settings.directStreaming()
                ? "ON: the LLMRouter only picks, tokens flow replica -> ingress -> client (splice)"
                : "OFF: relayed path (router reserves, replica actor streams tokens back)",
            settings.apiKeys().enabled()
                ? settings.apiKeys().size() + " API keys accepted" : "no API key needed");
        int relayedPort = config.getInt("sluice.ingress.relayed-port");
        if (relayedPort >= 0) {
          IngressBinding relayed = await(IngressServer.start(system, router,
              settings.withDirectStreaming(false, relayedPort), ingressView,
              Optional.of(capacityQueue), FatalErrors::exitNode));
          relayed.addToCoordinatedShutdown(drain, system);
          this.relayedBinding = Optional.of(relayed);
          log.info("Relayed-path ingress listening on {}", relayed.localAddress());
        }
        startHaproxy(config, binding.localAddress(), settings.apiKeys());
        ApiKeysWatch.start(system, settings.apiKeys(),
            config.getDuration("sluice.ingress.api-keys-reload-interval"),
            SluiceMetrics.global(), () -> haproxy.ifPresent(HaproxyDataPlane::onApiKeysChanged));
      } else {
        this.ingressBinding = Optional.empty();
      }
    } catch (Exception | Error e) {
      system.terminate();
      throw e;
    }
  }

  /** HAProxy as a second data plane beside the ingress, if {@code sluice.haproxy.port} asks. */
  private void startHaproxy(Config config, java.net.InetSocketAddress ingress, ApiKeys apiKeys)
      throws Exception {
    if (!HaproxySettings.fromConfig(config).enabled()) {
      return;
    }
    HaproxyDataPlane plane = HaproxyDataPlane.start(config, routerPort(), ingress, apiKeys,
        SluiceMetrics.global());
    this.haproxy = Optional.of(plane);
    CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseServiceRequestsDone(),
        "haproxy-soft-stop", () -> CompletableFuture.supplyAsync(() -> {
          try {
            plane.close();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return Done.getInstance();
        }));
    try {
      spawn(HaproxySync.create(plane, HaproxySettings.fromConfig(config).syncDelay()),
          "haproxy-sync");
    } catch (Exception e) {
      plane.close();
      throw e;
    }
  }

  /** Starts a node; fails (and cleans up) if a component cannot start. */
  public static SluiceNode start(NodeOptions options) throws Exception {
    return new SluiceNode(options);
  }

  private ClusterSingletonSettings controlRole() {
    return ClusterSingletonSettings.create(system).withRole(Role.CONTROL.clusterRole());
  }

  private Optional<ServerBinding> bindMetrics(Config config) throws Exception {
    int port = config.getInt("sluice.metrics.port");
    if (port < 0) {
      log.info("Metrics endpoint off (sluice.metrics.port = -1)");
      return Optional.empty();
    }
    ServerBinding binding = await(new MetricsEndpoint(system,
        SluiceMetrics.global().registry()).bind(config.getString("sluice.metrics.host"), port));
    binding.addToCoordinatedShutdown(UNBIND_DEADLINE, system);
    log.info("Prometheus metrics at http://{}:{}/metrics",
        config.getString("sluice.metrics.host"), binding.localAddress().getPort());
    return Optional.of(binding);
  }

  /**
   * Control nodes serve the router endpoint, and so do ingress nodes whose HAProxy has no router
   * address of its own: it reaches the router singleton wherever it runs, so their HAProxy
   * follows a failover.
   */
  static boolean servesRouterEndpoint(Set<Role> roles, Config config) {
    HaproxySettings haproxy = HaproxySettings.fromConfig(config);
    return roles.contains(Role.CONTROL)
        || roles.contains(Role.INGRESS) && haproxy.enabled() && haproxy.router().isEmpty();
  }

  private Optional<ServerBinding> bindRouter(RouterSettings settings) throws Exception {
    if (settings.httpPort() < 0) {
      return Optional.empty();
    }
    ServerBinding binding = await(new RouterHttpEndpoint(system, router, settings,
        Optional.of(capacityQueue)).bind());
    binding.addToCoordinatedShutdown(UNBIND_DEADLINE, system);
    return Optional.of(binding);
  }

  private ServerBinding bindApi(ActorRef<Controller.Command> proxy, ControllerSettings settings,
      Optional<SSLContext> tls) throws Exception {
    ServerBinding binding = await(new ControllerApi(system, proxy, settings,
        AppConfigs::validateRouters).bind(tls));
    binding.addToCoordinatedShutdown(UNBIND_DEADLINE, system);
    return binding;
  }

  /** The controller API's TLS ({@code sluice.controller.api.tls-dir}), checked; none if unset. */
  static Optional<SSLContext> apiTls(Config config) {
    String dir = config.getString("sluice.controller.api.tls-dir");
    return dir.isBlank() ? Optional.empty() : Optional.of(new TlsFolder(
        "sluice.controller.api.tls-dir (SLUICE_API_TLS_DIR)", Path.of(dir),
        "tls.key and tls.crt in PEM (and ca.crt, when there, must have signed tls.crt)")
        .serverContext());
  }

  static Address seedAddress(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    try {
      if (colon <= 0) {
        throw new NumberFormatException();
      }
      return new Address("pekko", "sluice", hostPort.substring(0, colon),
          Integer.parseInt(hostPort.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--seed-nodes: '" + hostPort + "' (expected: host:port, e.g. 10.0.0.5:25520)");
    }
  }

  private <T> void spawn(Behavior<T> behavior, String name) throws Exception {
    spawn(behavior, name, Props.empty());
  }

  private <T> void spawn(Behavior<T> behavior, String name, Props props) throws Exception {
    await(AskPattern.<SpawnProtocol.Command, ActorRef<T>>ask(system,
        replyTo -> new SpawnProtocol.Spawn<>(behavior, name, props, replyTo),
        STARTUP, system.scheduler()));
  }

  private static <T> T await(CompletionStage<T> stage) throws Exception {
    try {
      return stage.toCompletableFuture().get(STARTUP.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } catch (TimeoutException e) {
      throw new IllegalStateException("node component did not start within " + STARTUP, e);
    }
  }

  /** Options first, then tests' overrides, then application.conf and every reference.conf. */
  static Config config(NodeOptions options) {
    List<String> roles = options.roles().stream().map(Role::clusterRole).sorted().toList();
    Config fromOptions = ConfigFactory.empty()
        .withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(roles));
    if (options.host().isPresent()) {
      fromOptions = fromOptions.withValue("pekko.remote.artery.canonical.hostname",
          ConfigValueFactory.fromAnyRef(options.host().get()));
    }
    if (options.remotingPort().isPresent()) {
      fromOptions = fromOptions.withValue("pekko.remote.artery.canonical.port",
          ConfigValueFactory.fromAnyRef(options.remotingPort().get()));
    }
    Config config = options.overrides().withFallback(fromOptions)
        .withFallback(ConfigFactory.load()).resolve();
    // The ingress's drain runs in this shutdown phase: the phase must outlast it.
    Duration drain = config.getDuration("sluice.ingress.drain-timeout");
    return ConfigFactory.empty().withValue(
            "pekko.coordinated-shutdown.phases.service-requests-done.timeout",
            ConfigValueFactory.fromAnyRef(drain.plusSeconds(5).toMillis() + "ms"))
        .withFallback(ClusterFormation.pekkoSettings(config))
        .withFallback(RemotingTls.pekkoSettings(config))
        .withFallback(config);
  }

  public ActorSystem<?> system() {
    return system;
  }

  public Optional<ApplicationsConfig> applications() {
    return apps;
  }

  public ActorRef<LLMRouter.Command> router() {
    return router;
  }

  /** The CapacityQueue singleton (a proxy on nodes that do not host it). */
  public ActorRef<CapacityQueue.Command> capacityQueue() {
    return capacityQueue;
  }

  public Optional<ActorRef<Controller.Command>> controller() {
    return controller;
  }

  /** What this node's ingress knows about replicas (empty unless it has the ingress role). */
  public ReplicaSetView ingressView() {
    return ingressView;
  }

  public Optional<Integer> ingressPort() {
    return ingressBinding.map(b -> b.localAddress().getPort());
  }

  /** The extra relayed-path ingress, if {@code sluice.ingress.relayed-port} asked for one. */
  public Optional<Integer> relayedIngressPort() {
    return relayedBinding.map(b -> b.localAddress().getPort());
  }

  /** The controller API's port (control nodes). */
  public Optional<Integer> apiPort() {
    return apiBinding.map(b -> b.localAddress().getPort());
  }

  /** The port of this node's {@code /metrics} (empty when off). */
  public Optional<Integer> metricsPort() {
    return metricsBinding.map(b -> b.localAddress().getPort());
  }

  /** The HAProxy data plane beside this node's ingress, if {@code sluice.haproxy.port} >= 0. */
  public Optional<HaproxyDataPlane> haproxy() {
    return haproxy;
  }

  public Optional<Integer> routerPort() {
    return routerBinding.map(b -> b.localAddress().getPort());
  }

  public NodeOptions options() {
    return options;
  }

  /** Coordinated shutdown: unbind, stop singletons and replicas, leave, terminate. */
  @Override
  public void close() {
    system.terminate();
    try {
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn("Node did not terminate within 30 s: {}", e.toString());
    }
  }
}
