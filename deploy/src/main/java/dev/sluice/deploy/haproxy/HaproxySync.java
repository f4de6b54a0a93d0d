package dev.sluice.deploy.haproxy;

import dev.sluice.core.NodeTopics;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaSetView;
import java.time.Duration;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Follows the controller's published replica sets and hands the current ones to the
 * {@link HaproxyDataPlane}, gathering the changes of {@code delay} into one sync (a scale-up of
 * several replicas reloads HAProxy once).
 */
public final class HaproxySync {

  private static final Object TICK = "sync";

  private HaproxySync() {}

  public static Behavior<Object> create(HaproxyDataPlane plane, Duration delay) {
    return Behaviors.setup(context -> {
      ReplicaSetView view = new ReplicaSetView();
      NodeTopics.get(context.getSystem()).replicaSets().tell(ReplicaSetTopic.subscribe(
          context.<ReplicaSet>messageAdapter(ReplicaSet.class, set -> set)));
      return Behaviors.withTimers(timers -> Behaviors.receive(Object.class)
          .onMessage(ReplicaSet.class, set -> {
            if (view.apply(set) && !timers.isTimerActive(TICK)) {
              timers.startSingleTimer(TICK, TICK, delay);
            }
            return Behaviors.same();
          })
          .onMessageEquals(TICK, () -> {
            plane.onReplicaSets(view.all());
            return Behaviors.same();
          })
          .build());
    });
  }
}
