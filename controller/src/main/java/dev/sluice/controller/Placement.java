package dev.sluice.controller;

import dev.sluice.core.DeploymentId;
import dev.sluice.replica.NodeAgent;
import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Where a new replica goes: the replica node with the fewest replicas of its deployment, then the
 * fewest replicas in all, then by address (a stable order). Replicas that are draining or gone
 * no longer count; replicas already placed are never moved.
 */
final class Placement {

  private Placement() {}

  static Optional<ActorRef<NodeAgent.Command>> choose(
      Collection<ActorRef<NodeAgent.Command>> nodes, Collection<ReplicaRecord> replicas,
      DeploymentId deployment) {
    return nodes.stream().min(Comparator
        .comparingLong((ActorRef<NodeAgent.Command> node) -> count(replicas, node, deployment))
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
}
