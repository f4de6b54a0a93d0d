package dev.sluice.controller;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.slf4j.Logger;

/**
 * What routers and ingresses are told: a versioned {@link ReplicaSet} per deployment, published
 * when its RUNNING replicas or its routing change, and all of them again periodically for late
 * subscribers. Versions only grow (wall-clock based, so a new controller's sets win).
 */
final class ReplicaSetPublisher {

  private final ActorRef<Topic.Command<ReplicaSet>> topic;
  private final Logger log;
  private final Map<DeploymentId, ReplicaSet> published = new java.util.HashMap<>();
  private long version = System.currentTimeMillis();

  ReplicaSetPublisher(ActorRef<Topic.Command<ReplicaSet>> topic, Logger log) {
    this.topic = topic;
    this.log = log;
  }

  Map<DeploymentId, ReplicaSet> published() {
    return published;
  }

  /** Publishes {@code state}'s set if its replicas or routing changed. */
  void publish(DeploymentState state, List<ReplicaInfo> running) {
    var router = state.llm.deployment().requestRouter();
    ReplicaSet previous = published.get(state.id);
    if (previous != null && previous.replicas().equals(running)
        && previous.routePrefix().equals(state.app.routePrefix())
        && previous.routerClass().equals(router.requestRouterClass())
        && previous.routerKwargs().equals(router.kwargs())) {
      return;
    }
    ReplicaSet set = new ReplicaSet(state.id, nextVersion(), state.app.routePrefix(),
        List.of(state.llm.modelId()), router.requestRouterClass(), router.kwargs(), running);
    published.put(state.id, set);
    topic.tell(ReplicaSetTopic.publish(set));
    log.info("Published replica set {} v{}: {} RUNNING", state.id, set.version(), running.size());
  }

  /** A removed deployment's last set: marked removed, so routers and ingresses forget it. */
  void publishRemoved(DeploymentState state) {
    published.remove(state.id);
    var router = state.llm.deployment().requestRouter();
    topic.tell(ReplicaSetTopic.publish(new ReplicaSet(state.id, nextVersion(),
        state.app.routePrefix(), List.of(state.llm.modelId()), router.requestRouterClass(),
        router.kwargs(), List.of(), true)));
  }

  void republishAll() {
    published.values().forEach(set -> topic.tell(ReplicaSetTopic.publish(set)));
  }

  private long nextVersion() {
    version = Math.max(version + 1, System.currentTimeMillis());
    return version;
  }
}
