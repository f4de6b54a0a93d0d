package dev.sluice.replica;

import dev.sluice.core.Failures;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.http.ClusterToken;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.config.LlmConfig;
import dev.sluice.core.serialization.ClusterMessage;
import dev.sluice.replica.engine.Engine;
import dev.sluice.replica.engine.Engines;
import dev.sluice.replica.engine.GpuPool;
import dev.sluice.replica.engine.MeteredEngine;
import dev.sluice.replica.http.ReplicaEndpointSettings;
import dev.sluice.replica.http.ReplicaHttpHandler;
import dev.sluice.replica.http.ReplicaServer;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.http.javadsl.ServerBinding;

/**
 * One replica: starts its engine, then binds its own HTTP endpoint (late, after the engine is up),
 * then reports RUNNING with that endpoint. Tokens never pass through this actor; it only manages
 * the lifecycle. Drain: refuse new requests, let ongoing ones finish, stop after the graceful
 * timeout at the latest.
 */
public final class ReplicaActor extends AbstractBehavior<ReplicaActor.Command> {

  public sealed interface Command permits Drain, CheckHealth, EngineStarted, EngineFailed,
      EngineExited, Bound, BindFailed, DrainTick {}

  /**
   * Stop taking requests, finish ongoing ones, then stop: when idle, or after {@code
   * graceSeconds} at the latest (streams still open then are cut, counted and logged).
   */
  public record Drain(double graceSeconds) implements Command, ClusterMessage {}

  /** Is this replica healthy: its engine, and its endpoint's {@code /-/healthz}? */
  public record CheckHealth(ActorRef<HealthReport> replyTo) implements Command, ClusterMessage {}

  /** A health check's answer. */
  public record HealthReport(ReplicaId id, boolean healthy, String detail)
      implements ClusterMessage {}

  private interface Internal extends NoSerializationVerificationNeeded {}

  private enum EngineStarted implements Command, Internal { INSTANCE }

  private record EngineFailed(Throwable cause) implements Command, Internal {}

  /** The engine's process ended ({@code -1}: how is unknown). */
  private record EngineExited(int code) implements Command, Internal {}

  private record Bound(ServerBinding binding) implements Command, Internal {}

  private record BindFailed(Throwable cause) implements Command, Internal {}

  private enum DrainTick implements Command, Internal { INSTANCE }

  private static final Duration DRAIN_CHECK = Duration.ofMillis(100);
  /** How long a draining replica with an external engine waits before trusting a zero count. */
  private static final Duration EXTERNAL_DRAIN_SETTLE = Duration.ofSeconds(2);
  private static final io.prometheus.metrics.core.metrics.Counter DRAIN_CUTS =
      SluiceMetrics.global().counter("replica_drain_cut_streams_total", "Requests still open "
          + "when a draining replica reached its graceful shutdown timeout, cut", "deployment");

  private final ReplicaSpec spec;
  private final ReplicaNodeSettings settings;
  private final ActorRef<ReplicaStatusUpdate> listener;
  private final ActorRef<NodeLoadReporter.Command> loads;
  private final TimerScheduler<Command> timers;
  private final Engine engine;
  private final ReplicaMetrics metrics;
  private ReplicaInfo info;
  private ReplicaHttpHandler handler;
  private ServerBinding binding;
  /** What the node's load reporter reads while this replica runs (set once it is RUNNING). */
  private ReplicaLoadSource loadSource;
  private ActorRef<dev.sluice.core.relay.Generate> relay;
  private long drainDeadlineNanos;
  private long drainStartNanos;

  private ReplicaActor(ActorContext<Command> context, TimerScheduler<Command> timers,
      ReplicaSpec spec, ReplicaNodeSettings settings, ActorRef<ReplicaStatusUpdate> listener,
      ActorRef<NodeLoadReporter.Command> loads) {
    super(context);
    this.loads = loads;
    this.timers = timers;
    this.spec = spec;
    this.settings = settings;
    this.listener = listener;
    LlmConfig llm = spec.llm();
    this.info = new ReplicaInfo(spec.id(), context.getSystem().address().toString(),
        settings.advertiseHost(), 0, llm.deployment().maxOngoingRequests(),
        ReplicaState.STARTING, List.of(llm.modelId()));
    this.metrics = new ReplicaMetrics(spec.id());
    this.engine = new MeteredEngine(Engines.create(llm, spec.id().toString(),
        settings.bindHost(), ClusterToken.of(context.getSystem()),
        GpuPool.get(context.getSystem())), metrics::ttft);
    report("");
    context.pipeToSelf(engine.start(), (done, failure) ->
        failure == null ? EngineStarted.INSTANCE : new EngineFailed(failure));
    context.pipeToSelf(engine.exited(), (code, failure) -> new EngineExited(
        failure == null ? code : -1));
  }

  /**
   * @param listener receives every state change (the controller)
   * @param loads the node's load reporter
   */
  public static Behavior<Command> create(ReplicaSpec spec, ReplicaNodeSettings settings,
      ActorRef<ReplicaStatusUpdate> listener, ActorRef<NodeLoadReporter.Command> loads) {
    return Behaviors.withTimers(timers -> Behaviors.setup(
        context -> new ReplicaActor(context, timers, spec, settings, listener, loads)));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(EngineStarted.class, m -> onEngineStarted())
        .onMessage(EngineFailed.class, this::onEngineFailed)
        .onMessage(EngineExited.class, this::onEngineExited)
        .onMessage(Bound.class, this::onBound)
        .onMessage(BindFailed.class, this::onBindFailed)
        .onMessage(Drain.class, this::onDrain)
        .onMessage(CheckHealth.class, this::onCheckHealth)
        .onMessage(DrainTick.class, m -> onDrainTick())
        .onSignal(PostStop.class, signal -> onPostStop())
        .build();
  }

  private Behavior<Command> onEngineStarted() {
    LlmConfig llm = spec.llm();
    handler = new ReplicaHttpHandler(getContext().getSystem(), new ReplicaEndpointSettings(
        spec.id().toString(), llm.modelId(), llm.deployment().maxOngoingRequests(),
        llm.engine().defaultMaxTokens(), llm.engine().maxModelLen(), settings.maxRequestBytes(),
        settings.bodyTimeout(), settings.unconsumedResponseTimeout(),
        settings.reservationTimeout()), engine);
    relay = getContext().spawn(ReplicaRelay.create(spec.id(), handler.relay()), "relay");
    getContext().pipeToSelf(
        ReplicaServer.bind(getContext().getSystem(), settings.bindHost(), settings.ports(), handler),
        (bound, failure) -> failure == null ? new Bound(bound) : new BindFailed(failure));
    return this;
  }

  private Behavior<Command> onEngineFailed(EngineFailed failed) {
    getContext().getLog().warn("Replica {}: engine failed to start", spec.id(), failed.cause());
    info = info.withState(ReplicaState.UNHEALTHY);
    // What went wrong in words (no future's wrapper): "needs 1 GPU (num_gpus), and ...".
    Throwable cause = Failures.cause(failed.cause());
    report("engine failed to start: "
        + (cause.getMessage() != null ? cause.getMessage() : cause.toString()));
    return Behaviors.stopped();
  }

  /**
   * The engine's server ended on its own: the replica cannot serve any more, so it says so at
   * once (UNHEALTHY, replaced with backoff by the controller) rather than at the next health
   * check. A start that fails ends it too; then {@link EngineFailed} has said it already.
   */
  private Behavior<Command> onEngineExited(EngineExited exited) {
    if (info.state() == ReplicaState.STARTING) {
      return this; // the start fails too, with the server's last output: EngineFailed says it
    }
    if (info.state() == ReplicaState.UNHEALTHY) {
      return Behaviors.stopped();
    }
    getContext().getLog().warn("Replica {}: engine exited with code {}", spec.id(),
        exited.code());
    info = info.withState(ReplicaState.UNHEALTHY);
    report("engine exited with code " + exited.code());
    return Behaviors.stopped();
  }

  private Behavior<Command> onBound(Bound bound) {
    binding = bound.binding();
    if (info.state() == ReplicaState.DRAINING) {
      return onDrainTick();
    }
    int port = binding.localAddress().getPort();
    info = new ReplicaInfo(info.id(), info.nodeAddress(), info.host(), port,
        info.maxOngoingRequests(), ReplicaState.RUNNING, info.modelIds(),
        ActorRefResolver.get(getContext().getSystem()).toSerializationFormat(relay),
        engine.dataPort());
    getContext().getLog().info("Replica {} RUNNING, endpoint http://{}:{}", spec.id(),
        info.host(), port);
    report("");
    loadSource = new ReplicaLoadSource(spec.id(), engine, handler.slots(), metrics);
    loads.tell(new NodeLoadReporter.Register(spec.id(), loadSource, getContext().getSelf()));
    return this;
  }

  private Behavior<Command> onBindFailed(BindFailed failed) {
    // The cause's message says it all (no free port, say): no stack trace for every retry.
    getContext().getLog().warn("Replica {}: endpoint bind failed: {}", spec.id(),
        failed.cause().toString());
    info = info.withState(ReplicaState.UNHEALTHY);
    report("endpoint bind failed: " + failed.cause().getMessage());
    return Behaviors.stopped();
  }

  private Behavior<Command> onDrain(Drain drain) {
    if (info.state() == ReplicaState.DRAINING) {
      return this;
    }
    info = info.withState(ReplicaState.DRAINING);
    report("");
    if (handler != null) {
      handler.startDraining();
    }
    drainStartNanos = System.nanoTime();
    drainDeadlineNanos = drainStartNanos + (long) (drain.graceSeconds() * 1e9);
    return onDrainTick();
  }

  private Behavior<Command> onDrainTick() {
    int ongoing = handler == null ? 0 : handler.slots().ongoing();
    if (engine.dataPort() > 0) {
      // Ingresses reach an external engine directly: its own counts say what is open, read
      // fresh (a scrape a second) once every router and ingress has dropped this replica.
      var stats = engine.stats();
      ongoing = Math.max(ongoing, stats.running() + stats.waiting());
      if (ongoing == 0 && System.nanoTime() < drainStartNanos + EXTERNAL_DRAIN_SETTLE.toNanos()
          && System.nanoTime() < drainDeadlineNanos) {
        timers.startSingleTimer(DrainTick.INSTANCE, DRAIN_CHECK);
        return this;
      }
    }
    if (ongoing == 0 || System.nanoTime() >= drainDeadlineNanos) {
      if (binding == null && handler != null) {
        return this; // still binding: Bound will come back here
      }
      info = info.withState(ReplicaState.STOPPING);
      if (ongoing > 0) {
        DRAIN_CUTS.labelValues(spec.id().deploymentId().toString()).inc(ongoing);
        getContext().getLog().warn("Replica {}: graceful shutdown timeout reached; cutting {} "
            + "open request(s)", spec.id(), ongoing);
      }
      report(ongoing == 0 ? "" : "graceful shutdown timeout reached: " + ongoing
          + " open request(s) cut");
      return Behaviors.stopped();
    }
    timers.startSingleTimer(DrainTick.INSTANCE, DRAIN_CHECK);
    return this;
  }

  private Behavior<Command> onPostStop() {
    if (handler != null) {
      handler.close();
    }
    if (binding != null) {
      ReplicaServer.unbind(getContext().getSystem(), binding, Duration.ofSeconds(1));
    }
    engine.stop();
    if (loadSource != null) {
      loadSource.close();
    }
    metrics.remove();
    return this;
  }

  /** Checks the engine, then the endpoint as a client would; answers only when both answer. */
  private Behavior<Command> onCheckHealth(CheckHealth check) {
    ReplicaId id = spec.id();
    if (binding == null || info.state() != ReplicaState.RUNNING) {
      check.replyTo().tell(new HealthReport(id, false, "not running (" + info.state() + ")"));
      return this;
    }
    var system = getContext().getSystem();
    String url = "http://" + info.host() + ":" + info.port() + "/-/healthz";
    engine.healthy().thenCompose(engineHealthy -> !engineHealthy
            ? java.util.concurrent.CompletableFuture.completedFuture(
                new HealthReport(id, false, "the engine reports itself unhealthy"))
            : org.apache.pekko.http.javadsl.Http.get(system)
                .singleRequest(org.apache.pekko.http.javadsl.model.HttpRequest.create(url))
                .thenApply(response -> {
                  response.discardEntityBytes(system);
                  int status = response.status().intValue();
                  return new HealthReport(id, status == 200, status == 200 ? ""
                      : "its endpoint answered " + status + " on /-/healthz");
                }))
        .whenComplete((report, failure) -> check.replyTo().tell(failure == null ? report
            : new HealthReport(id, false, "its endpoint did not answer: " + failure)));
    return this;
  }

  private void report(String detail) {
    listener.tell(new ReplicaStatusUpdate(info, detail, getContext().getSelf(), engine.gpus()));
  }

  /** The endpoint handler, once the engine is up (for in-JVM stats). */
  ReplicaHttpHandler handler() {
    return handler;
  }
}
