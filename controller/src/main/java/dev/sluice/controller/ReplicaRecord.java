package dev.sluice.controller;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaState;
import dev.sluice.replica.NodeAgent;
import dev.sluice.replica.ReplicaActor;
import dev.sluice.replica.ReplicaStatusUpdate;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the controller tracks per replica: its last reported info, its node and actor, the spec
 * version it was started with, and where it is in draining and health checking. Owned by the
 * controller actor alone, hence mutable.
 */
final class ReplicaRecord {

  ReplicaInfo info;
  final ActorRef<NodeAgent.Command> node;
  Optional<ActorRef<ReplicaActor.Command>> actor = Optional.empty();
  /** The deployment spec (engine, capacity) it runs: a rolling update replaces other versions. */
  final String specVersion;
  final long requestedAtNanos;
  final long startedAtMillis;
  /** Draining: when the replica is told to drain (after every ingress applied the new set). */
  long drainAtNanos;
  boolean drainSent;
  /** Health checking: when the next check is due, and the deadline of the one in flight. */
  long nextCheckNanos;
  long checkDeadlineNanos;
  /** Health checks failed in a row (reset by one that passes). */
  int failedChecks;
  /** Requests in flight and queued in its engine, from its last load report. */
  int ongoing;
  /** The GPUs its engine's server holds, from its last status report. */
  List<String> gpus = List.of();
  /**
   * The GPUs its spec needs ({@code num_gpus}): what {@link GpuLedger} counts as taken on its node
   * from the start until the controller forgets it (its server may hold them until then).
   */
  int gpusNeeded;

  ReplicaRecord(ReplicaInfo info, ActorRef<NodeAgent.Command> node, String specVersion,
      long requestedAtNanos) {
    this.info = info;
    this.node = node;
    this.specVersion = specVersion;
    this.requestedAtNanos = requestedAtNanos;
    this.startedAtMillis = System.currentTimeMillis();
  }

  /** A replica a controller finds running (adoption), as it last reported. */
  ReplicaRecord(ReplicaStatusUpdate last, ActorRef<NodeAgent.Command> node, String specVersion,
      long requestedAtNanos) {
    this(last.info(), node, specVersion, requestedAtNanos);
    reported(last);
  }

  /** What the replica said of itself last: its info and GPUs. */
  void reported(ReplicaStatusUpdate update) {
    info = update.info();
    gpus = update.gpus();
  }

  ReplicaState state() {
    return info.state();
  }

  /** Counts toward the target: starting or running. */
  boolean isLive() {
    return state() == ReplicaState.STARTING || state() == ReplicaState.RUNNING;
  }

  boolean isRunning() {
    return state() == ReplicaState.RUNNING;
  }

  /** A health check should be sent now: running, reachable, none in flight, its time come. */
  boolean checkDue(long now) {
    return isRunning() && actor.isPresent() && checkDeadlineNanos == 0
        && now - nextCheckNanos >= 0;
  }

  /**
   * Its first check (it has just started, or a new controller adopted it): at a random point of
   * one period, so that replicas started or adopted together are not checked together every
   * period after.
   */
  void firstCheckWithin(long now, long periodNanos, RandomGenerator random) {
    nextCheckNanos = now + 1 + random.nextLong(Math.max(1, periodNanos));
  }

  /** The check in flight ended (answered, or past its deadline): the next one is due then. */
  void checkEnded(long nextCheckAt) {
    checkDeadlineNanos = 0;  // a late answer is ignored
    nextCheckNanos = nextCheckAt;
  }

  /** Counts a failed health check; true once {@code threshold} have failed in a row. */
  boolean failsCheck(int threshold) {
    return ++failedChecks >= threshold;
  }

  /** The health check in flight is past its deadline. */
  boolean checkOverdue(long now) {
    return isRunning() && checkDeadlineNanos != 0 && now - checkDeadlineNanos > 0;
  }
}
