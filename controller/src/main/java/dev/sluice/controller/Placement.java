package dev.sluice.controller;

import dev.sluice.core.DeploymentId;
import dev.sluice.replica.NodeAgent;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Where a new replica goes: among the replica nodes with the GPUs it needs, if it needs any
 * ({@link GpuLedger}), the one with the fewest recent failed starts, then the
 * fewest replicas of its deployment, then the fewest replicas in all, then by address (a stable
 * order). Replicas that are draining or gone no longer count; replicas already placed are never
 * moved.
 *
 * <p>Failed starts come first because a node where replicas cannot start (its port range full,
 * its engine missing or broken) has the fewest replicas of all, and would otherwise be chosen for
 * every replacement while other nodes have room: the deployment would never reach its target.
 * Such a node is chosen again only when every node has failed as often, or once it has had no
 * failed start for {@link Failures#MEMORY_NANOS}.
 */
final class Placement {

  private Placement() {}

  static Optional<ActorRef<NodeAgent.Command>> choose(
      Collection<ActorRef<NodeAgent.Command>> nodes, Collection<ReplicaRecord> replicas,
      DeploymentId deployment, Failures failures) {
    return choose(nodes, replicas, deployment, failures, node -> true);
  }

  /** The same among the nodes that {@code fit} (those with the GPUs it needs): none, empty. */
  static Optional<ActorRef<NodeAgent.Command>> choose(
      Collection<ActorRef<NodeAgent.Command>> nodes, Collection<ReplicaRecord> replicas,
      DeploymentId deployment, Failures failures, Predicate<ActorRef<NodeAgent.Command>> fit) {
    long now = System.nanoTime();
    return nodes.stream().filter(fit).min(Comparator
        .comparingInt((ActorRef<NodeAgent.Command> node) -> failures.recent(node, now))
        .thenComparingLong(node -> count(replicas, node, deployment))
        .thenComparingLong(node -> count(replicas, node, null))
        .thenComparing(node -> node.path().toString()));
  }

  private static long count(Collection<ReplicaRecord> replicas, ActorRef<NodeAgent.Command> node,
      DeploymentId deployment) {
    return replicas.stream()
        .filter(record -> record.node.equals(node) && record.isLive())
        .filter(record -> deployment == null
            || record.info.id().deploymentId().equals(deployment))
        .count();
  }

  /** Failed replica starts in a row per node (reset by a replica that reaches RUNNING there). */
  static final class Failures {

    /** A node's failed starts are forgotten after this long without another. */
    static final long MEMORY_NANOS = 60_000_000_000L;

    private record Streak(int count, long lastNanos) {}

    private final Map<ActorRef<NodeAgent.Command>, Streak> streaks = new HashMap<>();

    void failed(ActorRef<NodeAgent.Command> node, long now) {
      streaks.merge(node, new Streak(1, now),
          (old, next) -> new Streak(old.count() + 1, now));
    }

    void succeeded(ActorRef<NodeAgent.Command> node) {
      streaks.remove(node);
    }

    /** Nodes that left take their streaks with them. */
    void retain(Set<ActorRef<NodeAgent.Command>> nodes) {
      streaks.keySet().retainAll(nodes);
    }

    int recent(ActorRef<NodeAgent.Command> node, long now) {
      Streak streak = streaks.get(node);
      return streak == null || now - streak.lastNanos() > MEMORY_NANOS ? 0 : streak.count();
    }
  }
}
