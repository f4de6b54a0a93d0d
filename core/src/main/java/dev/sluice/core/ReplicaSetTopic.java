package dev.sluice.core;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.pubsub.Topic;

/**
 * The cluster-wide topic on which the controller publishes {@link ReplicaSet} snapshots. Routers
 * and ingresses subscribe, through their node's one topic actor ({@link NodeTopics}).
 */
public final class ReplicaSetTopic {

  public static final String NAME = "sluice-replica-sets";

  private ReplicaSetTopic() {}

  public static Behavior<Topic.Command<ReplicaSet>> behavior() {
    return Topic.create(ReplicaSet.class, NAME);
  }

  public static Topic.Command<ReplicaSet> subscribe(ActorRef<ReplicaSet> subscriber) {
    return Topic.subscribe(subscriber);
  }

  public static Topic.Command<ReplicaSet> publish(ReplicaSet set) {
    return Topic.publish(set);
  }
}
