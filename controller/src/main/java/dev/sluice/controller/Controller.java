package dev.sluice.controller;

import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.NodeTopics;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.ReplicaLoads;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.config.ApplicationConfig;
import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.config.DeploymentPatch;
import dev.sluice.core.config.LlmConfig;
import dev.sluice.core.serialization.ClusterMessage;
import dev.sluice.replica.NodeAgent;
import dev.sluice.replica.ReplicaActor;
import dev.sluice.replica.ReplicaStatusUpdate;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
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
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * The controller singleton (role {@code control}): keeps the desired applications (from the
 * controller API, stored in Distributed Data before a change is acknowledged), compares them with
 * the replicas that exist, asks {@link NodeAgent}s to start replicas (spread over nodes) or drain
 * them (after they left the published set), replaces unhealthy or failed replicas with backoff,
 * rolls spec changes out a few replicas at a time, autoscales, and publishes a versioned
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

  private record LoadReported(ReplicaLoads loads) implements Internal {}

  private record HealthAnswered(ReplicaActor.HealthReport report) implements Internal {}

  private record Adopted(NodeAgent.NodeReplicas answer) implements Internal {}

  private record ReachabilityChanged(ClusterEvent.ReachabilityEvent event) implements Internal {}

  private enum Tick implements Internal { INSTANCE }

  private final ControllerSettings settings;
  private final ControllerMetrics metrics = new ControllerMetrics(SluiceMetrics.global());
  private final DesiredStateStore store;
  private final ReplicaSetPublisher publisher;
  private final ActorRef<ReplicaStatusUpdate> statusAdapter;
  private final ActorRef<ReplicaActor.HealthReport> healthAdapter;
  private final ReplicaTable replicas;
  private final Map<DeploymentId, DeploymentState> deployments = new LinkedHashMap<>();
  private final Map<DeploymentId, Backoff> backoffs = new HashMap<>();
  private final Autoscaling autoscaling;
  private final SplittableRandom random = new SplittableRandom();
  private final Adoption adoption = new Adoption();
  private final Membership membership;
  private final ActorRef<NodeAgent.NodeReplicas> adoptedAdapter;
  private final ArrayDeque<Command> writes = new ArrayDeque<>();
  private ApplicationsConfig desired;
  /** A write is being stored (or the stored state is being loaded): others wait their turn. */
  private boolean writing;
  /** The stored desired state is known: replicas may be started and stopped. */
  private boolean loaded;
  private long lastFullPublishNanos;

  private Controller(ActorContext<Command> context, TimerScheduler<Command> timers,
      ControllerSettings settings, ApplicationsConfig seed) {
    super(context);
    this.settings = settings;
    NodeTopics topics = NodeTopics.get(context.getSystem());
    this.publisher = new ReplicaSetPublisher(topics.replicaSets(), context.getLog());
    this.autoscaling = new Autoscaling(metrics, context.getLog());
    this.statusAdapter = context.messageAdapter(ReplicaStatusUpdate.class, StatusChanged::new);
    this.healthAdapter = context.messageAdapter(ReplicaActor.HealthReport.class,
        HealthAnswered::new);
    this.adoptedAdapter = context.messageAdapter(NodeAgent.NodeReplicas.class, Adopted::new);
    this.membership = new Membership(context.getSystem());
    this.replicas = new ReplicaTable(context, settings, statusAdapter, publisher, membership,
        metrics);
    Cluster.get(context.getSystem()).subscriptions().tell(Subscribe.create(
        context.messageAdapter(ClusterEvent.ReachabilityEvent.class, ReachabilityChanged::new),
        ClusterEvent.ReachabilityEvent.class));
    topics.replicaLoads().tell(Topic.subscribe(
        context.messageAdapter(ReplicaLoads.class, LoadReported::new)));
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
        .onMessage(Adopted.class, this::onAdopted)
        .onMessage(ReachabilityChanged.class, this::onReachabilityChanged)
        .onMessage(Tick.class, m -> onTick())
        .onMessage(Stop.class, m -> Behaviors.stopped())
        .onSignal(org.apache.pekko.actor.typed.PostStop.class, s -> {
          metrics.forget();  // the singleton moved on: this node no longer reports its state
          return this;
        })
        .build();
  }

  private Behavior<Command> onGetStatus(GetStatus get) {
    get.replyTo().tell(new StatusDocument(StatusReport.json(deployments.values(),
        replicas.all(), replicas::serving, publisher.published(), replicas.nodes().size(),
        replicas.gpuReport())));
    return this;
  }

  private Behavior<Command> onGetReplicas(GetReplicas get) {
    get.replyTo().tell(new ReplicaStatus(
        replicas.all().stream().map(record -> record.info).toList()));
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
    // Nothing is started or stopped until the replica nodes said what they run.
    adoption.start(System.nanoTime(), settings.adoptionTimeout().toNanos(),
        membership.upReplicaNodes());
    if (result.stored().isPresent()) {
      getContext().getLog().info("Controller on {}: adopting the stored desired state ({} "
          + "application(s)) over this node's config", getContext().getSystem().address(),
          result.stored().get().applications().size());
      deployments.clear();  // the seed was never acted on: nothing to remove or drain
      apply(result.stored().get());
      writing = false;
      nextWrite();
    } else {
      getContext().getLog().info("Controller on {}: no desired state stored yet; serving and "
          + "storing this node's config ({} application(s))", getContext().getSystem().address(),
          desired.applications().size());
      store.store(desired, getContext().getSystem().ignoreRef(), true);
    }
    askNodes();
    finishAdoption();
    return this;
  }

  // ---- adoption: what the replica nodes already run, before anything is started or stopped

  /** Asks the replica nodes not asked yet, or not answering in time, what they run. */
  private void askNodes() {
    if (!loaded) {
      return;
    }
    for (ActorRef<NodeAgent.Command> node : adoption.toAsk(replicas.nodes(), System.nanoTime(),
        settings.adoptionTimeout().toNanos())) {
      node.tell(new NodeAgent.Adopt(statusAdapter, adoptedAdapter));
    }
  }

  private Behavior<Command> onAdopted(Adopted adopted) {
    NodeAgent.NodeReplicas answer = adopted.answer();
    adoption.answered(answer.node());
    replicas.offered(answer.node(), answer.gpus());
    int kept = 0;
    int stopped = 0;
    for (NodeAgent.RunningReplica running : answer.replicas()) {
      ReplicaId id = running.spec().id();
      ReplicaState state = running.last().info().state();
      if (replicas.contains(id) || state == ReplicaState.STOPPING
          || state == ReplicaState.UNHEALTHY) {
        continue;
      }
      DeploymentState deployment = deployments.get(id.deploymentId());
      if (deployment == null) {
        answer.node().tell(new NodeAgent.StopReplica(id, settings.orphanGrace().toSeconds()));
        stopped++;
        continue;
      }
      ReplicaRecord record = new ReplicaRecord(running.last(), answer.node(),
          DeploymentState.version(running.spec().llm()), System.nanoTime());
      record.actor = Optional.of(running.last().replica());
      record.drainSent = state == ReplicaState.DRAINING;
      record.gpusNeeded = running.spec().llm().engine().numGpus();
      record.firstCheckWithin(System.nanoTime(), deployment.healthPeriodNanos(), random);
      getContext().watchWith(running.last().replica(), new ReplicaGone(id));
      replicas.put(record);
      if (state == ReplicaState.RUNNING && record.specVersion.equals(deployment.version)) {
        deployment.versionServed = true;
      }
      kept++;
    }
    getContext().getLog().info("Adopted {} replica(s) of {} from {}; stopping {} no deployment "
        + "wants", kept, answer.replicas().size(), answer.node().path().address(), stopped);
    if (!finishAdoption()) {
      reconcile();
    }
    return this;
  }

  /** Ends the adoption when it is complete (or out of time); true when it just ended. */
  private boolean finishAdoption() {
    if (!adoption.finish(System.nanoTime())) {
      return false;
    }
    getContext().getLog().info("Controller: adoption done ({} replica node(s) answered, {} "
        + "replica(s) known); reconciling", adoption.answeredCount(), replicas.all().size());
    reconcile();
    return true;
  }

  private Behavior<Command> onReachabilityChanged(ReachabilityChanged changed) {
    if (membership.apply(changed.event())) {
      getContext().getLog().info("Node {} is {}: its replicas {} the published sets",
          changed.event().member().address(),
          changed.event() instanceof ClusterEvent.UnreachableMember ? "unreachable" : "back",
          changed.event() instanceof ClusterEvent.UnreachableMember ? "leave" : "rejoin");
      reconcile();
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
          state.update(app, llm, replicas.running(id));
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
    replicas.nodes(changed.listing().getServiceInstances(NodeAgent.KEY));
    getContext().getLog().info("Replica nodes: {}", replicas.nodes().size());
    askNodes();
    reconcile();
    return this;
  }

  private Behavior<Command> onStatusChanged(StatusChanged changed) {
    ReplicaStatusUpdate update = changed.update();
    ReplicaInfo info = update.info();
    ReplicaRecord record = replicas.get(info.id()).orElse(null);
    if (record == null) {
      if (loaded && !adoption.inProgress() && info.state() != ReplicaState.STOPPING) {
        // Started by an earlier controller and missed by the adoption (it had not reported
        // yet): no deployment counts it, so it stops rather than run unmanaged.
        getContext().getLog().info("Replica {} is not managed by this controller: draining it",
            info.id());
        update.replica().tell(new ReplicaActor.Drain(settings.orphanGrace().toSeconds()));
      }
      return this;
    }
    if (record.actor.isEmpty()) {
      getContext().watchWith(update.replica(), new ReplicaGone(info.id()));
      record.actor = Optional.of(update.replica());
    }
    ReplicaState decided = record.state();
    record.reported(update);
    replicas.reported(record, decided);
    DeploymentId deployment = info.id().deploymentId();
    boolean ours = decided == ReplicaState.DRAINING || decided == ReplicaState.UNHEALTHY;
    if (ours && (info.state() == ReplicaState.STARTING || info.state() == ReplicaState.RUNNING)) {
      record.info = info.withState(decided);  // our decision stands over its progress
    } else if (info.state() == ReplicaState.UNHEALTHY) {
      getContext().getLog().warn("Replica {} UNHEALTHY: {}", info.id(), update.detail());
      backoff(deployment).failed(update.detail());
    } else if (record.state() == ReplicaState.RUNNING) {
      backoff(deployment).succeeded();
      record.firstCheckWithin(System.nanoTime(), healthPeriod(deployment), random);
      DeploymentState state = deployments.get(deployment);
      if (state != null && record.specVersion.equals(state.version)) {
        state.versionServed = true;
      }
    }
    if (info.state() == ReplicaState.STOPPING || info.state() == ReplicaState.UNHEALTHY) {
      // Its last report (a replica stops after either). Its termination, watched too, may come
      // much later; for replicas that failed to bind at once it was seen never to come.
      replicas.remove(info.id());
      autoscaling.forget(info.id());
    }
    reconcile();
    return this;
  }

  private Behavior<Command> onReplicaGone(ReplicaGone gone) {
    ReplicaRecord removed = replicas.remove(gone.id()).orElse(null);
    autoscaling.forget(gone.id());
    if (removed != null && removed.isLive() && membership.lost(replicas.nodeOf(removed))) {
      getContext().getLog().warn("Replica {} lost with its node {}: replacing it now",
          gone.id(), replicas.nodeOf(removed));
    } else if (removed != null && removed.state() == ReplicaState.RUNNING) {
      getContext().getLog().warn("Replica {} terminated while RUNNING", gone.id());
      backoff(gone.id().deploymentId()).failed("replica " + gone.id() + " terminated");
    }
    reconcile();
    return this;
  }

  private Behavior<Command> onLoadReported(LoadReported reported) {
    long now = System.nanoTime();
    for (ReplicaLoad load : reported.loads().loads()) {
      ReplicaRecord record = replicas.get(load.replica()).orElse(null);
      if (record != null) {
        record.ongoing = load.ongoing();  // a request queued in the engine holds a slot too
        DeploymentState state = deployments.get(load.replica().deploymentId());
        if (state != null) {
          autoscaling.reported(state, load, now);
        }
      }
    }
    return this;
  }

  // ---- health checks

  private Behavior<Command> onHealthAnswered(HealthAnswered answered) {
    ReplicaActor.HealthReport report = answered.report();
    ReplicaRecord record = replicas.get(report.id()).orElse(null);
    if (record == null || record.checkDeadlineNanos == 0) {
      return this;  // gone, or answered after its deadline (already replaced)
    }
    record.checkEnded(System.nanoTime() + healthPeriod(report.id().deploymentId()));
    if (report.healthy()) {
      record.failedChecks = 0;
    } else if (record.isRunning()) {
      failedCheck(record, report.detail());
    }
    return this;
  }

  /**
   * The replica keeps serving until {@code health-check-failure-threshold} checks in a row failed
   * (as Ray Serve's): a node busy for one check period keeps its replicas and their streams.
   */
  private void failedCheck(ReplicaRecord record, String detail) {
    int threshold = settings.healthCheckFailureThreshold();
    if (record.failsCheck(threshold)) {
      unhealthy(record, detail + "; " + threshold + " checks failed in a row");
    } else {
      getContext().getLog().warn("Replica {} failed its health check ({}): {} of {} in a row "
          + "before it is replaced", record.info.id(), detail, record.failedChecks, threshold);
    }
  }

  private void checkHealth(long now) {
    for (ReplicaRecord record : List.copyOf(replicas.all())) {
      DeploymentState state = deployments.get(record.info.id().deploymentId());
      if (state == null) {
        continue;
      }
      if (record.checkOverdue(now)) {
        record.checkEnded(now + healthPeriod(record.info.id().deploymentId()));
        failedCheck(record, "no answer to its health check within "
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
    backoff(id.deploymentId()).failed("replica " + id + " unhealthy: " + detail);
    reconcile();
  }

  // ---- the loop

  private Behavior<Command> onTick() {
    long now = System.nanoTime();
    for (ReplicaRecord late : replicas.abandonLateStarts(now)) {
      backoff(late.info.id().deploymentId()).failed("a replica did not start within "
          + settings.replicaStartupTimeout().toSeconds() + " s");
    }
    if (adoption.inProgress() && finishAdoption()) {
      return this;
    }
    askNodes();  // the nodes that have not answered in time, again
    checkHealth(now);
    autoscaling.evaluate(now, deployments.values(), replicas.all());
    reconcile();
    replicas.sendDrains(now, deployments);
    if (now - lastFullPublishNanos >= settings.publishInterval().toNanos()) {
      publisher.republishAll();
      lastFullPublishNanos = now;
    }
    return this;
  }

  private void reconcile() {
    if (!loaded || adoption.inProgress()) {
      return;
    }
    long start = System.nanoTime();
    for (DeploymentState state : deployments.values()) {
      List<ReplicaRecord> live = replicas.of(state.id).stream().filter(ReplicaRecord::isLive)
          .toList();
      Rollout.Plan plan = Rollout.plan(live, state.version, state.target(), settings.maxSurge(),
          replicas::serving);
      plan.drain().forEach(record -> replicas.drain(record, Optional.of(state)));
      Backoff backoff = backoff(state.id);
      state.unplaced = "";
      for (int i = 0; i < plan.start() && !replicas.nodes().isEmpty()
          && backoff.mayStart(System.nanoTime()); i++) {
        if (!replicas.start(state)) {  // no node has the GPUs: waits, not a failure
          state.unplaced = replicas.shortage(state);
          replicas.makeRoom(state);
          break;
        }
      }
      StatusReport.updateStatus(state, replicas.of(state.id), replicas::serving,
          backoff.failures(), backoff.lastFailure());
      replicas.publish(state);
    }
    for (ReplicaRecord record : List.copyOf(replicas.all())) {
      if (record.isLive() && !deployments.containsKey(record.info.id().deploymentId())) {
        replicas.drain(record, Optional.empty());
      }
    }
    metrics.reconciled(System.nanoTime() - start, deployments.values(), replicas);
  }

  private Backoff backoff(DeploymentId deployment) {
    return backoffs.computeIfAbsent(deployment, d -> new Backoff(
        settings.restartBackoffMin().toNanos(), settings.restartBackoffMax().toNanos(),
        () -> metrics.replaced(d)));
  }

  private long healthPeriod(DeploymentId deployment) {
    DeploymentState state = deployments.get(deployment);
    return state == null ? 10_000_000_000L : state.healthPeriodNanos();
  }
}
