package dev.sluice.core.metrics;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.pubsub.Topic;

/** The cluster-wide topic every node publishes its {@link NodeStats} on (read by dashboards). */
public final class NodeStatsTopic {

  public static final String NAME = "sluice-node-stats";

  private NodeStatsTopic() {}

  public static Behavior<Topic.Command<NodeStats>> behavior() {
    return Topic.create(NodeStats.class, NAME);
  }
}
