package dev.sluice.deploy.observe;

import dev.sluice.controller.dashboard.DashboardFeed;
import dev.sluice.core.NodeTopics;
import dev.sluice.core.metrics.NodeStats;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.core.metrics.StatsSampler;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.DeadLetter;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * One per node: every second it sets the cluster gauges ({@code sluice_cluster_members{status}},
 * {@code sluice_cluster_unreachable_members}) from this node's view of membership, and publishes
 * the node's {@link NodeStats} for dashboards; it counts dead letters
 * ({@code sluice_actor_dead_letters_total}).
 */
public final class NodeObserver {

  private static final String[] STATUSES = {"Joining", "WeaklyUp", "Up", "Leaving", "Exiting",
      "Down", "Removed", "PreparingForShutdown", "ReadyForShutdown"};

  private sealed interface Command {}

  private enum Tick implements Command { INSTANCE }

  private record Dead(DeadLetter letter) implements Command {}

  private NodeObserver() {}

  public static Behavior<?> create(SluiceMetrics metrics, Duration interval) {
    Gauge members = metrics.gauge("cluster_members",
        "Cluster members as this node sees them, by status.", "status");
    Gauge unreachable = metrics.gauge("cluster_unreachable_members",
        "Cluster members this node's failure detector marks unreachable.");
    Counter deadLetters = metrics.counter("actor_dead_letters_total",
        "Messages sent to actors that no longer exist (or never did) on this node.");
    StatsSampler sampler = new StatsSampler(metrics.registry(), DashboardFeed.FAMILIES);
    return Behaviors.<Command>setup(context -> {
      ActorRef<Topic.Command<NodeStats>> topic = NodeTopics.get(context.getSystem()).nodeStats();
      ActorRef<DeadLetter> dead = context.messageAdapter(DeadLetter.class, Dead::new);
      context.getSystem().eventStream().tell(new EventStream.Subscribe<>(DeadLetter.class, dead));
      String self = context.getSystem().address().toString();
      Cluster cluster = Cluster.get(context.getSystem());
      return Behaviors.withTimers(timers -> {
        timers.startTimerWithFixedDelay(Tick.INSTANCE, interval);
        return Behaviors.receive(Command.class)
            .onMessageEquals(Tick.INSTANCE, () -> {
              membership(cluster.state(), members, unreachable);
              topic.tell(Topic.publish(new NodeStats(self, System.currentTimeMillis(),
                  sampler.sample())));
              return Behaviors.same();
            })
            .onMessage(Dead.class, letter -> {
              deadLetters.labelValues().inc();
              return Behaviors.same();
            })
            .build();
      });
    });
  }

  private static void membership(ClusterEvent.CurrentClusterState state, Gauge members,
      Gauge unreachable) {
    Map<String, Integer> byStatus = new HashMap<>();
    for (String status : STATUSES) {
      byStatus.put(status, 0);
    }
    for (Member member : state.getMembers()) {
      byStatus.merge(member.status().toString(), 1, Integer::sum);
    }
    byStatus.forEach((status, count) -> members.labelValues(status).set(count));
    unreachable.labelValues().set(state.getUnreachable().size());
  }
}
