package dev.sluice.router;

import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * The router singleton when it runs on this node: callers on the same node ask it directly
 * instead of through the singleton proxy, one actor hop (and, on a pool, one thread wake-up) less
 * per request. It is set while the router runs here and cleared as it stops, from then on
 * callers go through the proxy again (which holds messages while the singleton moves).
 */
public final class LocalRouter implements Extension {

  private static final ExtensionId<LocalRouter> ID = new ExtensionId<>() {
    @Override
    public LocalRouter createExtension(ActorSystem<?> system) {
      return new LocalRouter();
    }
  };

  private final AtomicReference<ActorRef<LLMRouter.Command>> running = new AtomicReference<>();

  private LocalRouter() {}

  public static LocalRouter get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /**
   * Whom to ask: the router itself while it runs on this node, else {@code proxy} (the
   * singleton proxy). Every caller on a node asks through this.
   */
  public ActorRef<LLMRouter.Command> or(ActorRef<LLMRouter.Command> proxy) {
    ActorRef<LLMRouter.Command> here = running.get();
    return here != null ? here : proxy;
  }

  void started(ActorRef<LLMRouter.Command> router) {
    running.set(router);
  }

  void stopping(ActorRef<LLMRouter.Command> router) {
    running.compareAndSet(router, null);
  }
}
