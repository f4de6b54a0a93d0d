package dev.sluice.core;

import dev.sluice.core.metrics.NodeStats;
import dev.sluice.core.metrics.NodeStatsTopic;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.pubsub.Topic;

/**
 * This node's one actor per Sluice topic, shared by every publisher and subscriber on the node.
 *
 * <p>A Pekko topic sends each published message once to every topic actor in the cluster that
 * has subscribers. When the router, the controller and the capacity queue each spawned their own
 * topic actor, a replica node's load reports crossed the network three times to reach the one node they
 * run on; through this node's shared actor it crosses once and fans out locally. The actors live
 * as long as the node: a singleton that moves here finds its topic already known cluster-wide.
 * A subscriber that stops is dropped by the topic (it watches its subscribers).
 */
public final class NodeTopics implements Extension {

  private static final ExtensionId<NodeTopics> ID = new ExtensionId<>() {
    @Override
    public NodeTopics createExtension(ActorSystem<?> system) {
      return new NodeTopics(system);
    }
  };

  private final ActorRef<Topic.Command<ReplicaSet>> replicaSets;
  private final ActorRef<Topic.Command<ReplicaLoads>> replicaLoads;
  private final ActorRef<Topic.Command<NodeStats>> nodeStats;

  private NodeTopics(ActorSystem<?> system) {
    this.replicaSets = system.systemActorOf(ReplicaSetTopic.behavior(), "replica-set-topic",
        Props.empty());
    this.replicaLoads = system.systemActorOf(ReplicaLoadTopic.behavior(), "replica-load-topic",
        Props.empty());
    this.nodeStats = system.systemActorOf(NodeStatsTopic.behavior(), "node-stats-topic",
        Props.empty());
  }

  public static NodeTopics get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /** The controller's {@link ReplicaSet} snapshots. */
  public ActorRef<Topic.Command<ReplicaSet>> replicaSets() {
    return replicaSets;
  }

  /** The replicas' {@link ReplicaLoad} reports, a node's together ({@link ReplicaLoads}). */
  public ActorRef<Topic.Command<ReplicaLoads>> replicaLoads() {
    return replicaLoads;
  }

  /** Every node's {@link NodeStats}, for the dashboards. */
  public ActorRef<Topic.Command<NodeStats>> nodeStats() {
    return nodeStats;
  }
}
