package dev.sluice.controller;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.config.ApplicationConfig;
import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.config.LlmConfig;
import dev.sluice.core.serialization.ClusterMessage;
import dev.sluice.replica.NodeAgent;
import dev.sluice.replica.ReplicaSpec;
import dev.sluice.replica.ReplicaStatusUpdate;
import java.util.ArrayList;
import java.util.Comparator;
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
 * The controller singleton (role {@code control}): compares the desired applications with the
 * replicas that exist, asks {@link NodeAgent}s to start or drain replicas (spreading by count),
 * replaces replicas that fail or never start (with backoff), and publishes a versioned
 * {@link ReplicaSet} of RUNNING replicas per deployment to every router and ingress.
 */
public final class Controller extends AbstractBehavior<Controller.Command> {

  public sealed interface Command permits GetReplicas, Stop, StatusChanged, NodesChanged,
      ReplicaGone, Tick {}

  /** Every replica the controller manages, with its state and endpoint. */
  public record GetReplicas(ActorRef<ReplicaStatus> replyTo) implements Command, ClusterMessage {}

  /** The singleton's stop message. */
  public enum Stop implements Command, ClusterMessage { INSTANCE }

  private interface Internal extends NoSerializationVerificationNeeded {}

  private record StatusChanged(ReplicaStatusUpdate update) implements Command, Internal {}

  private record NodesChanged(Receptionist.Listing listing) implements Command, Internal {}

  private record ReplicaGone(ReplicaId id) implements Command, Internal {}

  private enum Tick implements Command, Internal { INSTANCE }

  private final ControllerSettings settings;
  private final ApplicationsConfig desired;
  private final ActorRef<Topic.Command<ReplicaSet>> topic;
  private final ActorRef<ReplicaStatusUpdate> statusAdapter;
  private final Map<ReplicaId, ReplicaRecord> replicas = new LinkedHashMap<>();
  private final Map<DeploymentId, ReplicaSet> published = new HashMap<>();
  private final Map<DeploymentId, Backoff> backoffs = new HashMap<>();
  private Set<ActorRef<NodeAgent.Command>> nodes = Set.of();
  private long version;
  private long lastFullPublishNanos;

  private Controller(ActorContext<Command> context, TimerScheduler<Command> timers,
      ControllerSettings settings, ApplicationsConfig desired) {
    super(context);
    this.settings = settings;
    this.desired = desired;
    this.version = System.currentTimeMillis();
    this.topic = context.spawn(ReplicaSetTopic.behavior(), "replica-set-topic");
    this.statusAdapter = context.messageAdapter(ReplicaStatusUpdate.class, StatusChanged::new);
    context.getSystem().receptionist().tell(Receptionist.subscribe(NodeAgent.KEY,
        context.messageAdapter(Receptionist.Listing.class, NodesChanged::new)));
    timers.startTimerWithFixedDelay(Tick.INSTANCE, settings.reconcileInterval());
    context.getLog().info("Controller singleton started on {} with {} application(s)",
        context.getSystem().address(), desired.applications().size());
  }

  public static Behavior<Command> create(
      ControllerSettings settings, ApplicationsConfig desired) {
    return Behaviors.withTimers(timers -> Behaviors.setup(
        context -> new Controller(context, timers, settings, desired)));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(GetReplicas.class, this::onGetReplicas)
        .onMessage(StatusChanged.class, this::onStatusChanged)
        .onMessage(NodesChanged.class, this::onNodesChanged)
        .onMessage(ReplicaGone.class, this::onReplicaGone)
        .onMessage(Tick.class, m -> onTick())
        .onMessage(Stop.class, m -> Behaviors.stopped())
        .build();
  }

  private Behavior<Command> onGetReplicas(GetReplicas get) {
    get.replyTo().tell(new ReplicaStatus(
        replicas.values().stream().map(ReplicaRecord::info).toList()));
    return this;
  }

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
      return this; // a replica from an earlier controller incarnation; adopted in a later issue
    }
    if (record.actor().isEmpty()) {
      getContext().watchWith(update.replica(), new ReplicaGone(info.id()));
    }
    replicas.put(info.id(), record.withInfo(info, update.replica()));
    if (info.state() == ReplicaState.UNHEALTHY) {
      getContext().getLog().warn("Replica {} UNHEALTHY: {}", info.id(), update.detail());
      backoff(info.id().deploymentId()).failed();
    } else if (info.state() == ReplicaState.RUNNING) {
      backoff(info.id().deploymentId()).succeeded();
    }
    reconcile();
    return this;
  }

  private Behavior<Command> onReplicaGone(ReplicaGone gone) {
    ReplicaRecord removed = replicas.remove(gone.id());
    if (removed != null && removed.info().state() == ReplicaState.RUNNING) {
      getContext().getLog().warn("Replica {} terminated while RUNNING", gone.id());
      backoff(gone.id().deploymentId()).failed();
    }
    reconcile();
    return this;
  }

  private Behavior<Command> onTick() {
    long now = System.nanoTime();
    for (ReplicaRecord record : List.copyOf(replicas.values())) {
      if (record.info().state() == ReplicaState.STARTING
          && now - record.requestedAtNanos() > settings.replicaStartupTimeout().toNanos()) {
        getContext().getLog().warn("Replica {} not RUNNING after {}; replacing it",
            record.info().id(), settings.replicaStartupTimeout());
        record.node().tell(new NodeAgent.StopReplica(record.info().id()));
        replicas.remove(record.info().id());
        backoff(record.info().id().deploymentId()).failed();
      }
    }
    reconcile();
    if (now - lastFullPublishNanos >= settings.publishInterval().toNanos()) {
      published.values().forEach(set -> topic.tell(ReplicaSetTopic.publish(set)));
      lastFullPublishNanos = now;
    }
    return this;
  }

  private void reconcile() {
    for (ApplicationConfig app : desired.applications()) {
      for (LlmConfig llm : app.llmConfigs()) {
        DeploymentId deployment = llm.deploymentId(app.name());
        scale(deployment, llm);
        publish(deployment, app, llm);
      }
    }
  }

  private void scale(DeploymentId deployment, LlmConfig llm) {
    List<ReplicaRecord> live = replicas.values().stream()
        .filter(r -> r.info().id().deploymentId().equals(deployment) && r.isLive())
        .toList();
    int missing = llm.deployment().numReplicas() - live.size();
    Backoff backoff = backoff(deployment);
    while (missing > 0 && !nodes.isEmpty() && backoff.mayStart(System.nanoTime())) {
      start(deployment, llm);
      missing--;
    }
    if (missing < 0) {
      live.stream()
          .sorted(Comparator.comparing((ReplicaRecord r) -> r.info().state() == ReplicaState.RUNNING)
              .thenComparing(ReplicaRecord::requestedAtNanos, Comparator.reverseOrder()))
          .limit(-missing)
          .forEach(this::drain);
    }
  }

  private void start(DeploymentId deployment, LlmConfig llm) {
    ActorRef<NodeAgent.Command> node = leastLoadedNode();
    ReplicaId id = ReplicaId.random(deployment);
    var address = node.path().address().hasGlobalScope() ? node.path().address()
        : getContext().getSystem().address();
    ReplicaInfo info = new ReplicaInfo(id, address.toString(), "", 0,
        llm.deployment().maxOngoingRequests(), ReplicaState.STARTING, List.of(llm.modelId()));
    replicas.put(id, new ReplicaRecord(info, node, Optional.empty(), System.nanoTime()));
    node.tell(new NodeAgent.SpawnReplica(new ReplicaSpec(id, llm), statusAdapter));
    getContext().getLog().info("Starting replica {} on {}", id, address);
  }

  private ActorRef<NodeAgent.Command> leastLoadedNode() {
    Map<ActorRef<NodeAgent.Command>, Integer> load = new HashMap<>();
    nodes.forEach(node -> load.put(node, 0));
    replicas.values().forEach(r -> load.computeIfPresent(r.node(), (n, count) -> count + 1));
    return load.entrySet().stream()
        .min(Map.Entry.<ActorRef<NodeAgent.Command>, Integer>comparingByValue()
            .thenComparing(e -> e.getKey().path().toString()))
        .orElseThrow()
        .getKey();
  }

  private void drain(ReplicaRecord record) {
    getContext().getLog().info("Draining replica {}", record.info().id());
    replicas.put(record.info().id(), new ReplicaRecord(
        record.info().withState(ReplicaState.DRAINING), record.node(), record.actor(),
        record.requestedAtNanos()));
    record.node().tell(new NodeAgent.StopReplica(record.info().id()));
  }

  private void publish(DeploymentId deployment, ApplicationConfig app, LlmConfig llm) {
    List<ReplicaInfo> running = new ArrayList<>();
    for (ReplicaRecord record : replicas.values()) {
      if (record.info().id().deploymentId().equals(deployment)
          && record.info().state() == ReplicaState.RUNNING) {
        running.add(record.info());
      }
    }
    ReplicaSet previous = published.get(deployment);
    if (previous != null && previous.replicas().equals(running)) {
      return;
    }
    version = Math.max(version + 1, System.currentTimeMillis());
    ReplicaSet set = new ReplicaSet(deployment, version, app.routePrefix(),
        List.of(llm.modelId()), llm.deployment().requestRouter().requestRouterClass(),
        llm.deployment().requestRouter().kwargs(), running);
    published.put(deployment, set);
    topic.tell(ReplicaSetTopic.publish(set));
    getContext().getLog().info("Published replica set {} v{}: {} RUNNING", deployment, version,
        running.size());
  }

  private Backoff backoff(DeploymentId deployment) {
    return backoffs.computeIfAbsent(deployment, d -> new Backoff(
        settings.restartBackoffMin().toNanos(), settings.restartBackoffMax().toNanos()));
  }
}
