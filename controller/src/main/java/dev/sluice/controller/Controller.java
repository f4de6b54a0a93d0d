package dev.sluice.controller;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.ReplicaLoadTopic;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.config.ApplicationConfig;
import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.config.DeploymentPatch;
import dev.sluice.core.config.LlmConfig;
import dev.sluice.core.serialization.ClusterMessage;
import dev.sluice.replica.NodeAgent;
import dev.sluice.replica.ReplicaActor;
import dev.sluice.replica.ReplicaSpec;
import dev.sluice.replica.ReplicaStatusUpdate;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * The controller singleton (role {@code control}): keeps the desired applications (from the
 * controller API, stored in Distributed Data before a change is acknowledged), compares them with
 * the replicas that exist, asks {@link NodeAgent}s to start replicas (spread over nodes) or drain
 * them (after they left the published set), replaces unhealthy or failed replicas with backoff,
 * rolls spec changes out one replica at a time, autoscales, and publishes a versioned
 * {@link ReplicaSet} of RUNNING replicas per deployment to every router and ingress.
 */
public final class Controller extends AbstractBehavior<Controller.Command> {

  public sealed interface Command permits GetStatus, GetReplicas, PutApplications,
      DeleteApplication, PatchDeployment, Stop, Internal {}

  /** The status tree as JSON (what {@code GET /api/applications} returns). */
  public record GetStatus(ActorRef<StatusDocument> replyTo) implements Command, ClusterMessage {}

  public record StatusDocument(String json) implements ClusterMessage {}

  /** Every replica the controller manages, with its state and endpoint. */
  public record GetReplicas(ActorRef<ReplicaStatus> replyTo) implements Command, ClusterMessage {}

  /** Replace the whole desired state, like {@code serve deploy}. */
  public record PutApplications(ApplicationsConfig config, ActorRef<WriteResult> replyTo)
      implements Command, ClusterMessage {}

  public record DeleteApplication(String app, ActorRef<WriteResult> replyTo)
      implements Command, ClusterMessage {}

  public record PatchDeployment(String app, String deployment, DeploymentPatch patch,
      ActorRef<WriteResult> replyTo) implements Command, ClusterMessage {}

  /**
   * A write's outcome: 200 once the new desired state is stored and applied, 404 for an unknown
   * app or deployment, 503 when it could not be stored (then nothing changed).
   */
  public record WriteResult(int status, String message) implements ClusterMessage {}

  /** The singleton's stop message. */
  public enum Stop implements Command, ClusterMessage { INSTANCE }

  non-sealed interface Internal extends Command, NoSerializationVerificationNeeded {}

  private record StatusChanged(ReplicaStatusUpdate update) implements Internal {}

  private record NodesChanged(Receptionist.Listing listing) implements Internal {}

  private record ReplicaGone(ReplicaId id) implements Internal {}

  private record LoadReported(ReplicaLoad load) implements Internal {}

  private record HealthAnswered(ReplicaActor.HealthReport report) implements Internal {}

  private enum Tick implements Internal { INSTANCE }

  private final ControllerSettings settings;
  private final DesiredStateStore store;
  private final ReplicaSetPublisher publisher;
  private final ActorRef<ReplicaStatusUpdate> statusAdapter;
  private final ActorRef<ReplicaActor.HealthReport> healthAdapter;
  private final Map<ReplicaId, ReplicaRecord> replicas = new LinkedHashMap<>();
  private final Map<DeploymentId, DeploymentState> deployments = new LinkedHashMap<>();
  private final Map<DeploymentId, Backoff> backoffs = new HashMap<>();
  private final Map<DeploymentId, String> lastFailures = new HashMap<>();
  private final LoadHistory loads = new LoadHistory();
  private final ArrayDeque<Command> writes = new ArrayDeque<>();
  private ApplicationsConfig desired;
  /** A write is being stored (or the stored state is being loaded): others wait their turn. */
  private boolean writing;
  /** The stored desired state is known: replicas may be started and stopped. */
  private boolean loaded;
  private Set<ActorRef<NodeAgent.Command>> nodes = Set.of();
  private long lastFullPublishNanos;

  private Controller(ActorContext<Command> context, TimerScheduler<Command> timers,
      ControllerSettings settings, ApplicationsConfig seed) {
    super(context);
    this.settings = settings;
    this.publisher = new ReplicaSetPublisher(
        context.spawn(ReplicaSetTopic.behavior(), "replica-set-topic"), context.getLog());
    this.statusAdapter = context.messageAdapter(ReplicaStatusUpdate.class, StatusChanged::new);
    this.healthAdapter = context.messageAdapter(ReplicaActor.HealthReport.class,
        HealthAnswered::new);
    var loadTopic = context.spawn(ReplicaLoadTopic.behavior(), "replica-load-topic");
    loadTopic.tell(Topic.subscribe(
        context.messageAdapter(ReplicaLoad.class, LoadReported::new)));
    context.getSystem().receptionist().tell(Receptionist.subscribe(NodeAgent.KEY,
        context.messageAdapter(Receptionist.Listing.class, NodesChanged::new)));
    this.store = new DesiredStateStore(context, settings.writeTimeout());
    apply(seed);
    writing = true;  // until the stored desired state is known: it wins over the seed
    store.load();
    timers.startTimerWithFixedDelay(Tick.INSTANCE, settings.reconcileInterval());
  }

  /** A controller that starts from {@code seed} unless a desired state is already stored. */
  public static Behavior<Command> create(ControllerSettings settings, ApplicationsConfig seed) {
    return Behaviors.withTimers(timers -> Behaviors.setup(
        context -> new Controller(context, timers, settings, seed)));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(GetStatus.class, this::onGetStatus)
        .onMessage(GetReplicas.class, this::onGetReplicas)
        .onMessage(PutApplications.class, this::onWrite)
        .onMessage(DeleteApplication.class, this::onWrite)
        .onMessage(PatchDeployment.class, this::onWrite)
        .onMessage(DesiredStateStore.Loaded.class, this::onLoaded)
        .onMessage(DesiredStateStore.ReadLocally.class, m -> {
          store.loadLocally();
          return this;
        })
        .onMessage(DesiredStateStore.Stored.class, this::onStored)
        .onMessage(StatusChanged.class, this::onStatusChanged)
        .onMessage(NodesChanged.class, this::onNodesChanged)
        .onMessage(ReplicaGone.class, this::onReplicaGone)
        .onMessage(LoadReported.class, this::onLoadReported)
        .onMessage(HealthAnswered.class, this::onHealthAnswered)
        .onMessage(Tick.class, m -> onTick())
        .onMessage(Stop.class, m -> Behaviors.stopped())
        .build();
  }

  private Behavior<Command> onGetStatus(GetStatus get) {
    get.replyTo().tell(new StatusDocument(StatusReport.json(deployments.values(),
        replicas.values(), publisher.published(), nodes.size())));
    return this;
  }

  private Behavior<Command> onGetReplicas(GetReplicas get) {
    get.replyTo().tell(new ReplicaStatus(
        replicas.values().stream().map(record -> record.info).toList()));
    return this;
  }

  // ---- the desired state: writes are stored (majority) one at a time, then applied

  private Behavior<Command> onWrite(Command write) {
    writes.addLast(write);
    nextWrite();
    return this;
  }

  private void nextWrite() {
    while (!writing && !writes.isEmpty()) {
      Command write = writes.pollFirst();
      DesiredState.Change change;
      ActorRef<WriteResult> replyTo;
      if (write instanceof PutApplications put) {
        change = DesiredState.Change.to(put.config());
        replyTo = put.replyTo();
      } else if (write instanceof DeleteApplication delete) {
        change = DesiredState.delete(desired, delete.app());
        replyTo = delete.replyTo();
      } else {
        PatchDeployment patch = (PatchDeployment) write;
        change = DesiredState.patch(desired, patch.app(), patch.deployment(), patch.patch());
        replyTo = patch.replyTo();
      }
      if (!change.ok()) {
        replyTo.tell(new WriteResult(change.status(), change.problem()));
        continue;
      }
      writing = true;
      store.store(change.config(), replyTo, false);
    }
  }

  private Behavior<Command> onLoaded(DesiredStateStore.Loaded result) {
    this.loaded = true;
    if (result.stored().isPresent()) {
      getContext().getLog().info("Controller on {}: adopting the stored desired state ({} "
          + "application(s)) over this node's config", getContext().getSystem().address(),
          result.stored().get().applications().size());
      apply(result.stored().get());
      writing = false;
      nextWrite();
    } else {
      getContext().getLog().info("Controller on {}: no desired state stored yet; serving and "
          + "storing this node's config ({} application(s))", getContext().getSystem().address(),
          desired.applications().size());
      reconcile();
      store.store(desired, getContext().getSystem().ignoreRef(), true);
    }
    return this;
  }

  private Behavior<Command> onStored(DesiredStateStore.Stored stored) {
    writing = false;
    if (stored.seed()) {
      stored.failure().ifPresent(failure -> getContext().getLog().warn("Controller: this "
          + "node's config could not be stored ({}); the next controller may not find it",
          failure));
    } else if (stored.failure().isPresent()) {
      stored.replyTo().tell(new WriteResult(503, "the new desired state could not be stored on "
          + "a majority of nodes (" + stored.failure().get() + "); nothing changed"));
    } else {
      apply(stored.config());
      stored.replyTo().tell(new WriteResult(200, "stored and applied"));
    }
    nextWrite();
    return this;
  }

  /** Makes {@code config} the desired state: deployments created, updated or removed. */
  private void apply(ApplicationsConfig config) {
    desired = config;
    Map<DeploymentId, DeploymentState> next = new LinkedHashMap<>();
    for (ApplicationConfig app : config.applications()) {
      for (LlmConfig llm : app.llmConfigs()) {
        DeploymentId id = llm.deploymentId(app.name());
        DeploymentState state = deployments.get(id);
        if (state == null) {
          state = new DeploymentState(id, app, llm);
        } else {
          state.update(app, llm, running(id));
        }
        next.put(id, state);
      }
    }
    for (DeploymentId gone : deployments.keySet()) {
      if (!next.containsKey(gone)) {
        getContext().getLog().info("Deployment {} removed: draining its replicas", gone);
        publisher.publishRemoved(deployments.get(gone));
      }
    }
    deployments.clear();
    deployments.putAll(next);
    reconcile();
  }

  // ---- replicas' own reports

  private Behavior<Command> onNodesChanged(NodesChanged changed) {
    nodes = changed.listing().getServiceInstances(NodeAgent.KEY);
    getContext().getLog().info("Replica nodes: {}", nodes.size());
    reconcile();
    return this;
  }

  private Behavior<Command> onStatusChanged(StatusChanged changed) {
    ReplicaStatusUpdate update = changed.update();
    ReplicaInfo info = update.info();
    ReplicaRecord record = replicas.get(info.id());
    if (record == null) {
      return this;  // a replica of an earlier controller: adoption is not built yet
    }
    if (record.actor.isEmpty()) {
      getContext().watchWith(update.replica(), new ReplicaGone(info.id()));
      record.actor = Optional.of(update.replica());
    }
    if (info.state() == ReplicaState.STOPPING) {
      // Its last report: it stops now. (Its termination, watched too, may come much later.)
      replicas.remove(info.id());
      loads.forget(info.id());
      reconcile();
      return this;
    }
    ReplicaState decided = record.state();
    record.info = info;
    boolean ours = decided == ReplicaState.DRAINING || decided == ReplicaState.UNHEALTHY;
    if (ours && (info.state() == ReplicaState.STARTING || info.state() == ReplicaState.RUNNING)) {
      record.info = info.withState(decided);  // our decision stands over its progress
    }
    DeploymentId deployment = info.id().deploymentId();
    if (info.state() == ReplicaState.UNHEALTHY) {
      getContext().getLog().warn("Replica {} UNHEALTHY: {}", info.id(), update.detail());
      lastFailures.put(deployment, update.detail());
      backoff(deployment).failed();
    } else if (record.state() == ReplicaState.RUNNING) {
      backoff(deployment).succeeded();
      record.nextCheckNanos = System.nanoTime() + healthPeriod(deployment);
      DeploymentState state = deployments.get(deployment);
      if (state != null && record.specVersion.equals(state.version)) {
        state.versionServed = true;
      }
    }
    reconcile();
    return this;
  }

  private Behavior<Command> onReplicaGone(ReplicaGone gone) {
    ReplicaRecord removed = replicas.remove(gone.id());
    loads.forget(gone.id());
    if (removed != null && removed.state() == ReplicaState.RUNNING) {
      getContext().getLog().warn("Replica {} terminated while RUNNING", gone.id());
      lastFailures.put(gone.id().deploymentId(), "replica " + gone.id() + " terminated");
      backoff(gone.id().deploymentId()).failed();
    }
    reconcile();
    return this;
  }

  private Behavior<Command> onLoadReported(LoadReported reported) {
    ReplicaLoad load = reported.load();
    ReplicaRecord record = replicas.get(load.replica());
    if (record != null) {
      record.ongoing = load.ongoing();  // a request queued in the engine holds a slot too
      loads.record(load.replica(), System.nanoTime(), load.ongoing());
    }
    return this;
  }

  // ---- health checks

  private Behavior<Command> onHealthAnswered(HealthAnswered answered) {
    ReplicaActor.HealthReport report = answered.report();
    ReplicaRecord record = replicas.get(report.id());
    if (record == null || record.checkDeadlineNanos == 0) {
      return this;  // gone, or answered after its deadline (already replaced)
    }
    record.checkDeadlineNanos = 0;
    record.nextCheckNanos = System.nanoTime() + healthPeriod(report.id().deploymentId());
    if (!report.healthy() && record.isRunning()) {
      unhealthy(record, report.detail());
    }
    return this;
  }

  private void checkHealth(long now) {
    for (ReplicaRecord record : List.copyOf(replicas.values())) {
      DeploymentState state = deployments.get(record.info.id().deploymentId());
      if (state == null) {
        continue;
      }
      if (record.checkOverdue(now)) {
        unhealthy(record, "no answer to its health check within "
            + state.healthTimeoutSeconds() + " s");
      } else if (record.checkDue(now)) {
        record.checkDeadlineNanos = now + (long) (state.healthTimeoutSeconds() * 1e9);
        record.actor.get().tell(new ReplicaActor.CheckHealth(healthAdapter));
      }
    }
  }

  /** Out of the set at once, stopped without grace, replaced with backoff. */
  private void unhealthy(ReplicaRecord record, String detail) {
    ReplicaId id = record.info.id();
    getContext().getLog().warn("Replica {} failed its health check ({}): replacing it", id,
        detail);
    record.info = record.info.withState(ReplicaState.UNHEALTHY);
    record.checkDeadlineNanos = 0;
    record.drainSent = true;
    record.node.tell(new NodeAgent.StopReplica(id, 0));
    lastFailures.put(id.deploymentId(), "replica " + id + " unhealthy: " + detail);
    backoff(id.deploymentId()).failed();
    reconcile();
  }

  // ---- the loop

  private Behavior<Command> onTick() {
    long now = System.nanoTime();
    for (ReplicaRecord record : List.copyOf(replicas.values())) {
      if (record.state() == ReplicaState.STARTING
          && now - record.requestedAtNanos > settings.replicaStartupTimeout().toNanos()) {
        getContext().getLog().warn("Replica {} not RUNNING after {}; replacing it",
            record.info.id(), settings.replicaStartupTimeout());
        record.node.tell(new NodeAgent.StopReplica(record.info.id(), 0));
        replicas.remove(record.info.id());
        lastFailures.put(record.info.id().deploymentId(), "a replica did not start within "
            + settings.replicaStartupTimeout().toSeconds() + " s");
        backoff(record.info.id().deploymentId()).failed();
      }
    }
    checkHealth(now);
    autoscale(now);
    reconcile();
    sendDrains(now);
    if (now - lastFullPublishNanos >= settings.publishInterval().toNanos()) {
      publisher.republishAll();
      lastFullPublishNanos = now;
    }
    return this;
  }

  private void autoscale(long now) {
    for (DeploymentState state : deployments.values()) {
      if (state.autoscaler == null) {
        continue;
      }
      long window = (long) (state.autoscaler.config().lookBackPeriodS() * 1e9);
      double total = 0;
      int running = 0;
      for (ReplicaRecord record : replicas.values()) {
        if (record.isRunning() && record.info.id().deploymentId().equals(state.id)) {
          total += loads.average(record.info.id(), now, window);
          running++;
        }
      }
      int from = state.autoscaler.target();
      state.autoscaler.evaluate(now, total, running).ifPresent(decision -> getContext().getLog()
          .info("Autoscaling {}: {} -> {} replicas ({})", state.id, from, decision.to(),
              decision.reason()));
    }
  }

  private void reconcile() {
    if (!loaded) {
      return;
    }
    for (DeploymentState state : deployments.values()) {
      List<ReplicaRecord> live = records(state.id).stream().filter(ReplicaRecord::isLive)
          .toList();
      Rollout.Plan plan = Rollout.plan(live, state.version, state.target());
      plan.drain().forEach(this::drain);
      Backoff backoff = backoff(state.id);
      for (int i = 0; i < plan.start() && !nodes.isEmpty()
          && backoff.mayStart(System.nanoTime()); i++) {
        start(state);
      }
      StatusReport.updateStatus(state, records(state.id), backoff.failures(),
          lastFailures.getOrDefault(state.id, ""));
      publish(state);
    }
    for (ReplicaRecord record : List.copyOf(replicas.values())) {
      if (record.isLive() && !deployments.containsKey(record.info.id().deploymentId())) {
        drain(record);
      }
    }
  }

  private List<ReplicaRecord> records(DeploymentId deployment) {
    return replicas.values().stream()
        .filter(record -> record.info.id().deploymentId().equals(deployment)).toList();
  }

  private int running(DeploymentId deployment) {
    return (int) records(deployment).stream().filter(ReplicaRecord::isRunning).count();
  }

  private void start(DeploymentState state) {
    ActorRef<NodeAgent.Command> node = Placement.choose(nodes, replicas.values(), state.id)
        .orElseThrow();
    ReplicaId id = ReplicaId.random(state.id);
    var address = node.path().address().hasGlobalScope() ? node.path().address()
        : getContext().getSystem().address();
    ReplicaInfo info = new ReplicaInfo(id, address.toString(), "", 0,
        state.llm.deployment().maxOngoingRequests(), ReplicaState.STARTING,
        List.of(state.llm.modelId()));
    replicas.put(id, new ReplicaRecord(info, node, state.version, System.nanoTime()));
    node.tell(new NodeAgent.SpawnReplica(new ReplicaSpec(id, state.llm), statusAdapter));
    getContext().getLog().info("Starting replica {} on {}", id, address);
  }

  /**
   * Drains {@code record}: it leaves the published set now, and is told to drain once every
   * ingress and router has applied that set ({@code drain-delay}), so requests already routed
   * to it still find it serving.
   */
  private void drain(ReplicaRecord record) {
    boolean wasRunning = record.isRunning();
    getContext().getLog().info("Draining replica {} ({} ongoing)", record.info.id(),
        record.ongoing);
    record.info = record.info.withState(ReplicaState.DRAINING);
    record.drainAtNanos = System.nanoTime()
        + (wasRunning ? settings.drainDelay().toNanos() : 0);
    DeploymentState state = deployments.get(record.info.id().deploymentId());
    if (state != null) {
      publish(state);
    }
    sendDrains(System.nanoTime());
  }

  private void sendDrains(long now) {
    for (ReplicaRecord record : replicas.values()) {
      if (record.state() == ReplicaState.DRAINING && !record.drainSent
          && now - record.drainAtNanos >= 0) {
        record.drainSent = true;
        DeploymentState state = deployments.get(record.info.id().deploymentId());
        double grace = state != null ? state.llm.deployment().gracefulShutdownTimeoutS()
            : settings.orphanGrace().toSeconds();
        record.node.tell(new NodeAgent.StopReplica(record.info.id(), grace));
      }
    }
  }

  private void publish(DeploymentState state) {
    publisher.publish(state, records(state.id).stream().filter(ReplicaRecord::isRunning)
        .map(record -> record.info).toList());
  }

  private Backoff backoff(DeploymentId deployment) {
    return backoffs.computeIfAbsent(deployment, d -> new Backoff(
        settings.restartBackoffMin().toNanos(), settings.restartBackoffMax().toNanos()));
  }

  private long healthPeriod(DeploymentId deployment) {
    DeploymentState state = deployments.get(deployment);
    return state == null ? 10_000_000_000L : state.healthPeriodNanos();
  }
}
