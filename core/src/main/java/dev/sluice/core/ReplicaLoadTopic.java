package dev.sluice.core;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.pubsub.Topic;

/**
 * The cluster-wide topic replica nodes publish their replicas' {@link ReplicaLoad} reports on,
 * a node's reports together ({@link ReplicaLoads}).
 */
public final class ReplicaLoadTopic {

  public static final String NAME = "sluice-replica-loads";

  private ReplicaLoadTopic() {}

  public static Behavior<Topic.Command<ReplicaLoads>> behavior() {
    return Topic.create(ReplicaLoads.class, NAME);
  }
}
