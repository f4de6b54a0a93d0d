package dev.sluice.ingress;

import dev.sluice.core.ReplicaSetView;
import dev.sluice.router.LLMRouter;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;

/** Starts the ingress on a node: its replica directory and its HTTP server. */
public final class IngressServer {

  private IngressServer() {}

  /** Binds the ingress; the returned view is the ingress's knowledge of replicas. */
  public static CompletionStage<ServerBinding> start(ActorSystem<?> system,
      ActorRef<LLMRouter.Command> router, IngressSettings settings, ReplicaSetView view) {
    return Http.get(system).newServerAt(settings.host(), settings.port())
        .bind(new IngressHandler(system, router, view, settings));
  }
}
