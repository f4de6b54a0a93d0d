package dev.sluice.replica;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.config.LlmConfig;
import dev.sluice.core.serialization.ClusterMessage;
import dev.sluice.replica.engine.Engine;
import dev.sluice.replica.engine.Engines;
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
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.http.javadsl.ServerBinding;

/**
 * One replica: starts its engine, then binds its own HTTP endpoint (late, after the engine is up),
 * then reports RUNNING with that endpoint. Tokens never pass through this actor; it only manages
 * the lifecycle. Drain: refuse new requests, let ongoing ones finish, stop after the graceful
 * timeout at the latest.
 */
public final class ReplicaActor extends AbstractBehavior<ReplicaActor.Command> {

  public sealed interface Command permits Drain, EngineStarted, EngineFailed, Bound, BindFailed,
      DrainTick, LoadTick {}

  /** Stop taking requests, finish ongoing ones, then stop. */
  public enum Drain implements Command, ClusterMessage { INSTANCE }

  private interface Internal extends NoSerializationVerificationNeeded {}

  private enum EngineStarted implements Command, Internal { INSTANCE }

  private record EngineFailed(Throwable cause) implements Command, Internal {}

  private record Bound(ServerBinding binding) implements Command, Internal {}

  private record BindFailed(Throwable cause) implements Command, Internal {}

  private enum DrainTick implements Command, Internal { INSTANCE }

  private enum LoadTick implements Command, Internal { INSTANCE }

  private static final Duration DRAIN_CHECK = Duration.ofMillis(100);

  private final ReplicaSpec spec;
  private final ReplicaNodeSettings settings;
  private final ActorRef<ReplicaStatusUpdate> listener;
  private final ActorRef<Topic.Command<ReplicaLoad>> loads;
  private ReplicaLoad lastLoad;
  private long lastLoadNanos;
  private final TimerScheduler<Command> timers;
  private final Engine engine;
  private ReplicaInfo info;
  private ReplicaHttpHandler handler;
  private ServerBinding binding;
  private ActorRef<dev.sluice.core.relay.Generate> relay;
  private long drainDeadlineNanos;

  private ReplicaActor(ActorContext<Command> context, TimerScheduler<Command> timers,
      ReplicaSpec spec, ReplicaNodeSettings settings, ActorRef<ReplicaStatusUpdate> listener,
      ActorRef<Topic.Command<ReplicaLoad>> loads) {
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
    this.engine = Engines.create(llm.engine());
    report("");
    context.pipeToSelf(engine.start(), (done, failure) ->
        failure == null ? EngineStarted.INSTANCE : new EngineFailed(failure));
  }

  /**
   * @param listener receives every state change (the controller)
   * @param loads the node's load-report topic
   */
  public static Behavior<Command> create(ReplicaSpec spec, ReplicaNodeSettings settings,
      ActorRef<ReplicaStatusUpdate> listener, ActorRef<Topic.Command<ReplicaLoad>> loads) {
    return Behaviors.withTimers(timers -> Behaviors.setup(
        context -> new ReplicaActor(context, timers, spec, settings, listener, loads)));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(EngineStarted.class, m -> onEngineStarted())
        .onMessage(EngineFailed.class, this::onEngineFailed)
        .onMessage(Bound.class, this::onBound)
        .onMessage(BindFailed.class, this::onBindFailed)
        .onMessage(Drain.class, m -> onDrain())
        .onMessage(DrainTick.class, m -> onDrainTick())
        .onMessage(LoadTick.class, m -> onLoadTick())
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
    report("engine failed to start: " + failed.cause());
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
        ActorRefResolver.get(getContext().getSystem()).toSerializationFormat(relay));
    getContext().getLog().info("Replica {} RUNNING, endpoint http://{}:{}", spec.id(),
        info.host(), port);
    report("");
    timers.startTimerWithFixedDelay(LoadTick.INSTANCE, settings.loadReportInterval());
    return this;
  }

  /** Publishes the load if it changed since the last report, or as a heartbeat. */
  private Behavior<Command> onLoadTick() {
    var stats = engine.stats();
    ReplicaLoad load = new ReplicaLoad(spec.id(), handler.slots().ongoing(), stats.waiting(),
        handler.slots().limit(), stats.prefixCacheHitRatio(), stats.kvCacheUsage());
    long now = System.nanoTime();
    if (!load.equals(lastLoad) || now - lastLoadNanos >= settings.loadReportHeartbeat().toNanos()) {
      loads.tell(Topic.publish(load));
      lastLoad = load;
      lastLoadNanos = now;
    }
    return this;
  }

  private Behavior<Command> onBindFailed(BindFailed failed) {
    getContext().getLog().warn("Replica {}: endpoint bind failed", spec.id(), failed.cause());
    info = info.withState(ReplicaState.UNHEALTHY);
    report("endpoint bind failed: " + failed.cause().getMessage());
    return Behaviors.stopped();
  }

  private Behavior<Command> onDrain() {
    if (info.state() == ReplicaState.DRAINING) {
      return this;
    }
    info = info.withState(ReplicaState.DRAINING);
    report("");
    if (handler != null) {
      handler.startDraining();
    }
    drainDeadlineNanos = System.nanoTime()
        + (long) (spec.llm().deployment().gracefulShutdownTimeoutS() * 1e9);
    return onDrainTick();
  }

  private Behavior<Command> onDrainTick() {
    boolean idle = handler == null || handler.slots().ongoing() == 0;
    if (idle || System.nanoTime() >= drainDeadlineNanos) {
      if (binding == null && handler != null) {
        return this; // still binding: Bound will come back here
      }
      info = info.withState(ReplicaState.STOPPING);
      report(idle ? "" : "graceful shutdown timeout reached with ongoing requests");
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
      ReplicaServer.unbind(binding, Duration.ofSeconds(1));
    }
    engine.stop();
    return this;
  }

  private void report(String detail) {
    listener.tell(new ReplicaStatusUpdate(info, detail, getContext().getSelf()));
  }

  /** The endpoint handler, once the engine is up (for in-JVM stats). */
  ReplicaHttpHandler handler() {
    return handler;
  }
}
