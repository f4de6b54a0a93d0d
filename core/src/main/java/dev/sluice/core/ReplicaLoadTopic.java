package dev.sluice.core;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.pubsub.Topic;

/** The cluster-wide topic replicas publish their {@link ReplicaLoad} reports on. */
public final class ReplicaLoadTopic {

  public static final String NAME = "sluice-replica-loads";

  private ReplicaLoadTopic() {}

  public static Behavior<Topic.Command<ReplicaLoad>> behavior() {
    return Topic.create(ReplicaLoad.class, NAME);
  }
}
