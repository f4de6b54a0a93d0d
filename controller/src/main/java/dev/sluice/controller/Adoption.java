package dev.sluice.controller;

import dev.sluice.replica.NodeAgent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new controller's first step, before it starts or stops anything: every replica node is asked
 * which replicas it runs ({@link NodeAgent.Adopt}), so that after a failover or a restart the
 * running replicas are adopted (same ids, no restart) instead of orphaned. It ends when as many
 * nodes answered as the cluster has replica members up, or at its deadline. Nodes that appear
 * later are asked too, whenever they appear. A node that has not answered within the adoption
 * timeout is asked again (its answer also tells the controller which GPUs it offers: without
 * one, the node would never be given a replica that needs GPUs).
 */
final class Adoption {

  private static final Logger LOG = LoggerFactory.getLogger(Adoption.class);

  /** When each node was last asked. */
  private final Map<ActorRef<NodeAgent.Command>, Long> asked = new HashMap<>();
  private final Set<ActorRef<NodeAgent.Command>> answered = new HashSet<>();
  private boolean inProgress;
  private long deadlineNanos;
  private int expected;

  void start(long now, long timeoutNanos, int expectedNodes) {
    inProgress = true;
    deadlineNanos = now + timeoutNanos;
    expected = expectedNodes;
  }

  boolean inProgress() {
    return inProgress;
  }

  /**
   * The nodes to ask now: those not asked yet, and those asked at least {@code retryNanos} ago
   * that have not answered (they are then counted as asked now). {@code nodes} are the cluster's
   * replica nodes now: once the adoption is over, those gone are forgotten.
   */
  List<ActorRef<NodeAgent.Command>> toAsk(Collection<ActorRef<NodeAgent.Command>> nodes,
      long now, long retryNanos) {
    if (!inProgress) {
      asked.keySet().retainAll(nodes);
      answered.retainAll(nodes);
    }
    List<ActorRef<NodeAgent.Command>> due = new ArrayList<>();
    for (ActorRef<NodeAgent.Command> node : nodes) {
      Long last = asked.get(node);
      if (last != null && (answered.contains(node) || now - last < retryNanos)) {
        continue;
      }
      if (last != null) {
        LOG.warn("Replica node {} did not say what it runs within {} ms; asking it again",
            node.path().address(), (now - last) / 1_000_000);
      }
      asked.put(node, now);
      due.add(node);
    }
    return due;
  }

  void answered(ActorRef<NodeAgent.Command> node) {
    answered.add(node);
  }

  /** Ends the adoption if every expected node answered or time is up; true when it just did. */
  boolean finish(long now) {
    if (inProgress && (answered.size() >= expected || now - deadlineNanos > 0)) {
      inProgress = false;
      return true;
    }
    return false;
  }

  int answeredCount() {
    return answered.size();
  }
}
