package dev.sluice.ingress;

import dev.sluice.core.NodeTopics;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaSetView;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Keeps this ingress's {@link ReplicaSetView} current from the controller's published replica
 * sets, so that request handling reads endpoints without asking any actor.
 */
public final class ReplicaDirectory {

  private ReplicaDirectory() {}

  public static Behavior<ReplicaSet> create(ReplicaSetView view) {
    return Behaviors.setup(context -> {
      NodeTopics.get(context.getSystem()).replicaSets()
          .tell(ReplicaSetTopic.subscribe(context.getSelf()));
      return Behaviors.receiveMessage(set -> {
        if (view.apply(set)) {
          context.getLog().debug("Replica set {} v{}: {} replicas", set.deployment(),
              set.version(), set.replicas().size());
        }
        return Behaviors.same();
      });
    });
  }
}
