package dev.sluice.controller;

import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * What the controller knows of nodes from cluster membership: which are unreachable now (their
 * replicas leave the published sets at once, and come back if the node does), and whether a
 * replica that terminated was lost with its node (then it is replaced at once, without the
 * backoff meant for replicas that fail on their own).
 */
final class Membership {

  private static final String REPLICA_ROLE = "replica";

  private final ActorSystem<?> system;
  private final Set<Address> unreachable = new HashSet<>();

  Membership(ActorSystem<?> system) {
    this.system = system;
  }

  /** Applies a reachability event; true when it changed what is reachable. */
  boolean apply(ClusterEvent.ReachabilityEvent event) {
    Address address = event.member().address();
    return event instanceof ClusterEvent.UnreachableMember
        ? unreachable.add(address) : unreachable.remove(address);
  }

  boolean reachable(Address node) {
    return !unreachable.contains(node);
  }

  /** Whether the node at {@code address} is gone or unreachable (its replicas died with it). */
  boolean lost(Address address) {
    ClusterEvent.CurrentClusterState state = Cluster.get(system).state();
    for (Member member : state.getMembers()) {
      if (member.address().equals(address)) {
        return member.status() != MemberStatus.up() && member.status() != MemberStatus.weaklyUp()
            || state.getUnreachable().contains(member);
      }
    }
    return true;
  }

  /** Replica-role members that are up: how many nodes an adoption waits to hear from. */
  int upReplicaNodes() {
    int count = 0;
    for (Member member : Cluster.get(system).state().getMembers()) {
      if (member.status() == MemberStatus.up() && member.hasRole(REPLICA_ROLE)) {
        count++;
      }
    }
    return count;
  }
}
