package dev.sluice.router;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetTopic;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.serialization.ClusterMessage;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.RequestRouter;
import dev.sluice.router.spi.RequestRouters;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The routing singleton (role {@code control}). Holds the latest {@link ReplicaSet} and one
 * {@link RequestRouter} per deployment, and answers {@link Route} by <em>picking</em> a replica:
 * one policy call, first replica of the first non-empty rank. It never sees a token.
 */
public final class LLMRouter extends AbstractBehavior<LLMRouter.Command> {

  public sealed interface Command permits Route, Stop, ReplicaSetChanged {}

  /** Pick a replica for one request (pick-only, the direct-streaming path). */
  public record Route(RouteRequest request, ActorRef<RouteResult> replyTo)
      implements Command, ClusterMessage {
    public Route {
      Objects.requireNonNull(request, "request");
      Objects.requireNonNull(replyTo, "replyTo");
    }
  }

  /** The singleton's stop message (handed over on leaving). */
  public enum Stop implements Command, ClusterMessage { INSTANCE }

  private record ReplicaSetChanged(ReplicaSet set)
      implements Command, NoSerializationVerificationNeeded {}

  private final ReplicaSetView view = new ReplicaSetView();
  private final Map<DeploymentId, PolicyHolder> policies = new HashMap<>();

  private record PolicyHolder(String routerClass, Map<String, Object> kwargs,
      Optional<RequestRouter> router, String error) {}

  private LLMRouter(ActorContext<Command> context) {
    super(context);
    var topic = context.spawn(ReplicaSetTopic.behavior(), "replica-set-topic");
    topic.tell(ReplicaSetTopic.subscribe(
        context.messageAdapter(ReplicaSet.class, ReplicaSetChanged::new)));
    context.getLog().info("LLMRouter singleton started on {} (pick-only for direct streaming)",
        context.getSystem().address());
  }

  public static Behavior<Command> create() {
    return Behaviors.setup(LLMRouter::new);
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Route.class, this::onRoute)
        .onMessage(ReplicaSetChanged.class, this::onReplicaSetChanged)
        .onMessage(Stop.class, m -> Behaviors.stopped())
        .build();
  }

  private Behavior<Command> onReplicaSetChanged(ReplicaSetChanged changed) {
    ReplicaSet set = changed.set();
    if (!view.apply(set)) {
      return this;
    }
    PolicyHolder holder = policies.get(set.deployment());
    if (holder == null || !holder.routerClass().equals(set.routerClass())
        || !holder.kwargs().equals(set.routerKwargs())) {
      holder = createPolicy(set);
      policies.put(set.deployment(), holder);
    }
    holder.router().ifPresent(router -> router.onReplicaSetChanged(set.replicas()));
    return this;
  }

  private PolicyHolder createPolicy(ReplicaSet set) {
    try {
      return new PolicyHolder(set.routerClass(), set.routerKwargs(),
          Optional.of(RequestRouters.create(set.routerClass(), set.routerKwargs())), "");
    } catch (IllegalArgumentException e) {
      getContext().getLog().error("Deployment {}: {}", set.deployment(), e.getMessage());
      return new PolicyHolder(set.routerClass(), set.routerKwargs(), Optional.empty(),
          e.getMessage());
    }
  }

  private Behavior<Command> onRoute(Route route) {
    route.replyTo().tell(pick(route.request()));
    return this;
  }

  private RouteResult pick(RouteRequest request) {
    Optional<ReplicaSet> resolved = view.resolve(request.model());
    if (resolved.isEmpty()) {
      return new RouteResult.NotRouted(ServeReason.NO_REPLICAS, request.model()
          .map(m -> "no deployment serves model '" + m + "'")
          .orElse(view.all().isEmpty() ? "no deployments known to the router yet"
              : "several deployments: the request must name its model (enable body forwarding)"));
    }
    ReplicaSet set = resolved.get();
    PolicyHolder holder = policies.get(set.deployment());
    if (holder.router().isEmpty()) {
      return new RouteResult.NotRouted(ServeReason.NO_REPLICAS, holder.error());
    }
    List<List<ReplicaInfo>> ranks = holder.router().get().chooseReplicas(set.replicas(),
        new PendingRequest(request.requestId(), request.sessionId(), request.model()));
    for (List<ReplicaInfo> rank : ranks) {
      if (!rank.isEmpty()) {
        return new RouteResult.Routed(rank.get(0));
      }
    }
    return new RouteResult.NotRouted(ServeReason.NO_REPLICAS,
        "no replicas available for " + set.deployment());
  }
}
