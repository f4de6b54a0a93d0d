package dev.sluice.controller;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaState;
import dev.sluice.replica.NodeAgent;
import dev.sluice.replica.ReplicaSpec;
import dev.sluice.replica.ReplicaStatusUpdate;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * The replicas the controller manages and what it does to them: start one where
 * {@link Placement} says (counting each node's failed starts and free GPUs), drain one (out of
 * the published set first, told to drain a {@code drain-delay} later), publish a deployment's set
 * (its running replicas on reachable nodes). Owned by the controller actor.
 */
final class ReplicaTable {

  private final ActorContext<Controller.Command> context;
  private final ControllerSettings settings;
  private final ActorRef<ReplicaStatusUpdate> reports;
  private final ReplicaSetPublisher publisher;
  private final Membership membership;
  private final Map<ReplicaId, ReplicaRecord> replicas = new LinkedHashMap<>();
  private Set<ActorRef<NodeAgent.Command>> nodes = Set.of();
  private final Placement.Failures failedStarts = new Placement.Failures();
  private final GpuLedger gpus = new GpuLedger();
  private final ControllerMetrics metrics;

  ReplicaTable(ActorContext<Controller.Command> context, ControllerSettings settings,
      ActorRef<ReplicaStatusUpdate> reports, ReplicaSetPublisher publisher,
      Membership membership, ControllerMetrics metrics) {
    this.metrics = metrics;
    this.context = context;
    this.settings = settings;
    this.reports = reports;
    this.publisher = publisher;
    this.membership = membership;
  }

  Collection<ReplicaRecord> all() {
    return replicas.values();
  }

  Optional<ReplicaRecord> get(ReplicaId id) {
    return Optional.ofNullable(replicas.get(id));
  }

  void put(ReplicaRecord record) {
    replicas.put(record.info.id(), record);
  }

  Optional<ReplicaRecord> remove(ReplicaId id) {
    return Optional.ofNullable(replicas.remove(id));
  }

  boolean contains(ReplicaId id) {
    return replicas.containsKey(id);
  }

  Set<ActorRef<NodeAgent.Command>> nodes() {
    return nodes;
  }

  void nodes(Set<ActorRef<NodeAgent.Command>> current) {
    nodes = current;
    failedStarts.retain(current);
    gpus.retain(current);
  }

  /** The GPUs {@code node} offers its replicas' servers, from its adoption answer. */
  void offered(ActorRef<NodeAgent.Command> node, List<String> devices) {
    gpus.offered(node, devices);
  }

  /**
   * A replica reported {@code record.info} after being in {@code before}: one that was starting
   * and failed counts against its node for {@link Placement}, one that reached RUNNING clears it.
   */
  void reported(ReplicaRecord record, ReplicaState before) {
    if (before != ReplicaState.STARTING) {
      return;
    }
    if (record.state() == ReplicaState.UNHEALTHY) {
      failedStarts.failed(record.node, System.nanoTime());
    } else if (record.isRunning()) {
      failedStarts.succeeded(record.node);
    }
  }

  /**
   * Gives up on the replicas not RUNNING within {@code replica-startup-timeout}: stopped,
   * forgotten, their nodes blamed; returns them.
   */
  List<ReplicaRecord> abandonLateStarts(long now) {
    List<ReplicaRecord> late = replicas.values().stream()
        .filter(record -> record.state() == ReplicaState.STARTING
            && now - record.requestedAtNanos > settings.replicaStartupTimeout().toNanos())
        .toList();
    for (ReplicaRecord record : late) {
      context.getLog().warn("Replica {} not RUNNING after {}; replacing it", record.info.id(),
          settings.replicaStartupTimeout());
      record.node.tell(new NodeAgent.StopReplica(record.info.id(), 0));
      replicas.remove(record.info.id());
      failedStarts.failed(record.node, now);
    }
    return late;
  }

  List<ReplicaRecord> of(DeploymentId deployment) {
    return replicas.values().stream()
        .filter(record -> record.info.id().deploymentId().equals(deployment)).toList();
  }

  int running(DeploymentId deployment) {
    return (int) of(deployment).stream().filter(ReplicaRecord::isRunning).count();
  }

  /** The node a replica runs on, as a cluster address. */
  Address nodeOf(ReplicaRecord record) {
    return address(record.node);
  }

  /**
   * Starts a replica of {@code state} where {@link Placement} says; false when no node has the
   * GPUs it needs ({@link #shortage} says why).
   */
  boolean start(DeploymentState state) {
    int need = state.llm.engine().numGpus();
    ActorRef<NodeAgent.Command> node = Placement.choose(nodes, replicas.values(), state.id,
        failedStarts, candidate -> gpus.fits(candidate, need, replicas.values())).orElse(null);
    if (node == null) {
      return false;
    }
    ReplicaId id = ReplicaId.random(state.id);
    Address address = address(node);
    ReplicaInfo info = new ReplicaInfo(id, address.toString(), "", 0,
        state.llm.deployment().maxOngoingRequests(), ReplicaState.STARTING,
        List.of(state.llm.modelId()));
    ReplicaRecord record = new ReplicaRecord(info, node, state.version, System.nanoTime());
    record.gpusNeeded = need;
    replicas.put(id, record);
    node.tell(new NodeAgent.SpawnReplica(new ReplicaSpec(id, state.llm), reports));
    metrics.started(state.id);
    context.getLog().info("Starting replica {} on {}", id, address);
    return true;
  }

  /** The GPUs offered and allocated, in all and per node, for the status API. */
  ObjectNode gpuReport() {
    return gpus.report(nodes, replicas.values(), node -> address(node).toString());
  }

  /** Why no node takes a replica of {@code state} (it needs more GPUs than any has free). */
  String shortage(DeploymentState state) {
    return gpus.shortage(state.llm.engine().numGpus(), nodes, replicas.values(),
        node -> address(node).toString());
  }

  /**
   * A rolling update that cannot place a new replica for want of GPUs drains an old one on a
   * node where the old ones' GPUs would make room for it, so that they go to the new version
   * (Ray Serve stops an old replica before it starts the new one); one at a time, while nothing
   * of the deployment is starting or draining. The count running drops below the target
   * meanwhile (by more than one while a new server needs the GPUs of several old ones).
   */
  void makeRoom(DeploymentState state) {
    List<ReplicaRecord> mine = of(state.id);
    if (mine.stream().anyMatch(record -> record.state() == ReplicaState.STARTING
        || record.state() == ReplicaState.DRAINING)) {
      return;
    }
    int need = state.llm.engine().numGpus();
    Predicate<ReplicaRecord> old = record -> record.isLive()
        && record.info.id().deploymentId().equals(state.id)
        && !record.specVersion.equals(state.version);
    mine.stream().filter(old)
        .filter(record -> gpus.fitsWithout(record.node, need, replicas.values(), old))
        .min(Rollout.DRAIN_ORDER)
        .ifPresent(record -> drain(record, Optional.of(state)));
  }

  private Address address(ActorRef<NodeAgent.Command> node) {
    Address address = node.path().address();
    return address.hasGlobalScope() ? address : context.getSystem().address();
  }

  /**
   * Drains {@code record}: it leaves the published set now, and is told to drain once every
   * ingress and router has applied that set ({@code drain-delay}), so requests already routed
   * to it still find it serving.
   */
  void drain(ReplicaRecord record, Optional<DeploymentState> deployment) {
    boolean wasRunning = record.isRunning();
    context.getLog().info("Draining replica {} ({} ongoing)", record.info.id(), record.ongoing);
    record.info = record.info.withState(ReplicaState.DRAINING);
    record.drainAtNanos = System.nanoTime()
        + (wasRunning ? settings.drainDelay().toNanos() : 0);
    deployment.ifPresent(this::publish);
  }

  /** Tells the draining replicas whose delay is over to drain, with their grace. */
  void sendDrains(long now, Map<DeploymentId, DeploymentState> deployments) {
    for (ReplicaRecord record : replicas.values()) {
      if (record.state() == ReplicaState.DRAINING && !record.drainSent
          && now - record.drainAtNanos >= 0) {
        record.drainSent = true;
        DeploymentState state = deployments.get(record.info.id().deploymentId());
        double grace = state != null ? state.llm.deployment().gracefulShutdownTimeoutS()
            : settings.orphanGrace().toSeconds();
        record.node.tell(new NodeAgent.StopReplica(record.info.id(), grace));
        metrics.stopped(record.info.id().deploymentId());
      }
    }
  }

  /** Publishes the RUNNING replicas of reachable nodes (an unreachable node's leave at once). */
  void publish(DeploymentState state) {
    publisher.publish(state, of(state.id).stream().filter(this::serving)
        .map(record -> record.info).toList());
  }

  /** RUNNING on a reachable node: in the published set. */
  boolean serving(ReplicaRecord record) {
    return record.isRunning() && membership.reachable(nodeOf(record));
  }
}
