package dev.sluice.controller;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.replica.NodeAgent;
import dev.sluice.replica.ReplicaActor;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;

/** What the controller tracks per replica: its last reported info, its node and its actor. */
record ReplicaRecord(
    ReplicaInfo info,
    ActorRef<NodeAgent.Command> node,
    Optional<ActorRef<ReplicaActor.Command>> actor,
    long requestedAtNanos) {

  ReplicaRecord withInfo(ReplicaInfo newInfo, ActorRef<ReplicaActor.Command> ref) {
    return new ReplicaRecord(newInfo, node, Optional.of(ref), requestedAtNanos);
  }

  /** Counts toward num_replicas: starting or running. */
  boolean isLive() {
    return switch (info.state()) {
      case STARTING, RUNNING -> true;
      case DRAINING, STOPPING, UNHEALTHY -> false;
    };
  }
}
