package dev.sluice.core.cluster;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * Where the cluster singletons of a role run, as far as membership tells: on the oldest member
 * of that role. While that member is unreachable (or there is none), no singleton answers and
 * asking one would only wait for a timeout; callers ask {@link #unavailable()} first and answer
 * at once instead, and asks already waiting are failed as soon as the singleton's node is seen
 * unreachable ({@link #track}). A graceful hand-over (the oldest leaving) is not a gap: the
 * singleton proxy holds messages for the few hundred milliseconds it takes, and an ask that went
 * to the old singleton after it stopped is sent again once its node is gone ({@link
 * PendingAsks}).
 */
public final class SingletonWatch implements Extension {

  /** The role whose oldest member runs Sluice's singletons (controller, router, queue). */
  public static final String CONTROL_ROLE = "control";

  private static final ExtensionId<SingletonWatch> ID = new ExtensionId<>() {
    @Override
    public SingletonWatch createExtension(ActorSystem<?> system) {
      return start(system, CONTROL_ROLE);
    }
  };

  /** The watch of this node's view of the control singletons (started on first use). */
  public static SingletonWatch get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  private final String role;
  /** How long after its node's removal a singleton starts elsewhere (down-removal-margin). */
  private final long handOverNanos;
  /**
   * How long after the singletons' node is removed the asks still waiting are sent again: the
   * proxies have heard of the removal by then and hold messages for the new singleton.
   */
  private static final Duration RESEND_AFTER = Duration.ofMillis(200);
  /** Asks younger than this when they would be sent again are left alone: not lost, just new. */
  private static final long RESEND_MIN_AGE_NANOS = Duration.ofMillis(100).toNanos();

  private final PendingAsks waiting = new PendingAsks();
  private volatile Optional<String> unavailable = Optional.of("cluster membership not known yet");
  private volatile long movingUntilNanos;
  private volatile String movingTo = "";

  private SingletonWatch(String role, Duration handOver) {
    this.role = role;
    this.handOverNanos = handOver.toNanos();
  }

  /** Watches the singletons of {@code role} from {@code system}'s membership events. */
  static SingletonWatch start(ActorSystem<?> system, String role) {
    Config config = system.settings().config();
    if (!config.getString("pekko.actor.provider").equals("cluster")
        && !config.getString("pekko.actor.provider").endsWith("ClusterActorRefProvider")) {
      // No cluster (a test of a local router): nothing to watch, the router is always there.
      SingletonWatch local = new SingletonWatch(role, Duration.ZERO);
      local.unavailable = Optional.empty();
      return local;
    }
    String margin = config.getString("pekko.cluster.down-removal-margin");
    SingletonWatch watch = new SingletonWatch(role, margin.equals("off") ? Duration.ZERO
        : config.getDuration("pekko.cluster.down-removal-margin"));
    system.systemActorOf(watch.behavior(), "singleton-watch-" + role, Props.empty());
    return watch;
  }

  /** Why no singleton of the role can answer now; empty when its node is up and reachable. */
  public Optional<String> unavailable() {
    Optional<String> now = unavailable;
    if (now.isEmpty() && System.nanoTime() - movingUntilNanos < 0) {
      return Optional.of("the singletons are moving to " + movingTo + " (their node was downed)");
    }
    return now;
  }

  /**
   * Sends {@code ask}; its answer fails with {@link SingletonUnreachable} if the singleton's
   * node becomes unreachable before it comes, and the ask is sent once more if that node leaves
   * gracefully meanwhile (the first answer wins). {@code ask} may run twice: only for asks that
   * may be repeated (a route pick, a read).
   */
  public <T> CompletableFuture<T> track(Supplier<CompletableFuture<T>> ask) {
    CompletableFuture<T> answer = waiting.send(ask);
    Optional<String> now = unavailable();
    if (now.isPresent()) {
      answer.completeExceptionally(new SingletonUnreachable(now.get()));
    }
    return answer;
  }

  /** A singleton ask failed fast: the singleton's node is unreachable or gone. */
  public static final class SingletonUnreachable extends RuntimeException {
    public SingletonUnreachable(String reason) {
      super(reason, null, false, false);
    }
  }

  private Behavior<ClusterEvent.ClusterDomainEvent> behavior() {
    return Behaviors.setup(context -> {
      Cluster cluster = Cluster.get(context.getSystem());
      cluster.subscriptions().tell(Subscribe.create(context.getSelf(),
          ClusterEvent.ClusterDomainEvent.class));
      Map<Address, Member> members = new HashMap<>();
      Set<Address> unreachable = new HashSet<>();
      return Behaviors.receiveMessage(event -> {
        if (event instanceof ClusterEvent.MemberRemoved removed) {
          Optional<Member> before = oldest(members);
          members.remove(removed.member().address());
          unreachable.remove(removed.member().address());
          boolean hosted = before.isPresent()
              && before.get().address().equals(removed.member().address());
          if (hosted && removed.previousStatus() == MemberStatus.exiting()) {
            context.getSystem().scheduler().scheduleOnce(RESEND_AFTER,
                () -> waiting.resendOlderThan(RESEND_MIN_AGE_NANOS),
                context.getExecutionContext());
          }
          if (hosted && removed.previousStatus() == MemberStatus.down()) {
            // A downed host's singletons start on the next oldest only after the margin.
            movingTo = oldest(members).map(m -> m.address().toString()).orElse("no node");
            movingUntilNanos = System.nanoTime() + handOverNanos;
          }
        } else if (event instanceof ClusterEvent.MemberEvent changed) {
          members.put(changed.member().address(), changed.member());
        } else if (event instanceof ClusterEvent.UnreachableMember lost) {
          members.put(lost.member().address(), lost.member());
          unreachable.add(lost.member().address());
        } else if (event instanceof ClusterEvent.ReachableMember back) {
          unreachable.remove(back.member().address());
        } else {
          return Behaviors.same();
        }
        update(members, unreachable);
        return Behaviors.same();
      });
    });
  }

  /** The member the singletons run on: the oldest of the role (a downed one until removed). */
  private Optional<Member> oldest(Map<Address, Member> members) {
    Member oldest = null;
    for (Member member : members.values()) {
      MemberStatus status = member.status();
      boolean hosts = status == MemberStatus.up() || status == MemberStatus.leaving()
          || status == MemberStatus.exiting() || status == MemberStatus.down();
      if (hosts && member.hasRole(role) && (oldest == null || member.isOlderThan(oldest))) {
        oldest = member;
      }
    }
    return Optional.ofNullable(oldest);
  }

  private void update(Map<Address, Member> members, Set<Address> unreachable) {
    Member oldest = oldest(members).orElse(null);
    Optional<String> next;
    if (oldest == null) {
      next = Optional.of("no node with role " + role + " is up in the cluster");
    } else if (oldest.status() == MemberStatus.down()) {
      next = Optional.of("the " + role + " node " + oldest.address() + " that ran the "
          + "singletons was downed; they move to the next oldest " + role + " node");
    } else if (unreachable.contains(oldest.address())) {
      next = Optional.of("the " + role + " node " + oldest.address() + " that runs the "
          + "singletons is unreachable (a failover follows once it is downed)");
    } else {
      next = Optional.empty();
    }
    unavailable = next;
    if (next.isPresent()) {
      waiting.failAll(new SingletonUnreachable(next.get()));
    }
  }
}
