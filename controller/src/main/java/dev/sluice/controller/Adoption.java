package dev.sluice.controller;

import dev.sluice.replica.NodeAgent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A new controller's first step, before it starts or stops anything: every replica node is asked
 * which replicas it runs ({@link NodeAgent.Adopt}), so that after a failover or a restart the
 * running replicas are adopted (same ids, no restart) instead of orphaned. It ends when as many
 * nodes answered as the cluster has replica members up, or at its deadline. Nodes that appear
 * later are asked too, whenever they appear.
 */
final class Adoption {

  private final Set<ActorRef<NodeAgent.Command>> asked = new HashSet<>();
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

  /** The nodes not asked yet (they are then counted as asked). */
  List<ActorRef<NodeAgent.Command>> toAsk(Collection<ActorRef<NodeAgent.Command>> nodes) {
    List<ActorRef<NodeAgent.Command>> fresh = new ArrayList<>();
    for (ActorRef<NodeAgent.Command> node : nodes) {
      if (asked.add(node)) {
        fresh.add(node);
      }
    }
    return fresh;
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
