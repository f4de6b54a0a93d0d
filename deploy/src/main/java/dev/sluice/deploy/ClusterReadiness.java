package dev.sluice.deploy;

import dev.sluice.core.ReplicaSet;
import dev.sluice.core.config.ApplicationConfig;
import dev.sluice.core.config.LlmConfig;
import dev.sluice.router.LLMRouter;
import dev.sluice.router.RouteRequest;
import dev.sluice.router.RouteResult;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * Waits until a local node is ready to serve: its ingress sees every deployment at its desired
 * replica count, the router singleton (which learns replica sets on its own subscription) can
 * pick a replica, and its HAProxy, if it runs one, has a server for each of those replicas.
 */
final class ClusterReadiness {

  private ClusterReadiness() {}

  static void awaitReplicas(SluiceNode node, Duration deadline) throws InterruptedException {
    long end = System.nanoTime() + deadline.toNanos();
    while (!ready(node) || !routerPicks(node)) {
      if (System.nanoTime() > end) {
        throw new IllegalStateException("replicas not RUNNING and visible to the ingress within "
            + deadline.toSeconds() + " s; see the log above");
      }
      Thread.sleep(50);
    }
  }

  /** The router can pick a replica of every model that should have one. */
  private static boolean routerPicks(SluiceNode node) {
    if (node.applications().isEmpty()) {
      return true;
    }
    for (ApplicationConfig app : node.applications().get().applications()) {
      for (LlmConfig llm : app.llmConfigs()) {
        if (llm.deployment().numReplicas() > 0 && !routerPicks(node, llm.modelId())) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean routerPicks(SluiceNode node, String model) {
    RouteRequest probe = RouteRequest.of("readiness-probe", Optional.empty())
        .withModel(Optional.of(model));
    try {
      RouteResult result = AskPattern.<LLMRouter.Command, RouteResult>ask(node.router(),
              replyTo -> new LLMRouter.Route(probe, replyTo), Duration.ofSeconds(1),
              node.system().scheduler())
          .toCompletableFuture().get();
      if (result instanceof RouteResult.Routed routed) {
        // A capacity-queue deployment leased a slot for this probe: give it back.
        routed.leaseId().ifPresent(lease -> node.capacityQueue().tell(
            new dev.sluice.capacity.CapacityQueue.Release(lease)));
        return true;
      }
      return false;
    } catch (Exception e) {
      return false;
    }
  }

  static boolean ready(SluiceNode node) {
    if (node.applications().isEmpty()) {
      return true;
    }
    for (ApplicationConfig app : node.applications().get().applications()) {
      for (LlmConfig llm : app.llmConfigs()) {
        Optional<ReplicaSet> set = node.ingressView().get(llm.deploymentId(app.name()));
        if (set.isEmpty() || set.get().replicas().size() < llm.deployment().numReplicas()) {
          return false;
        }
        if (node.haproxy().isPresent() && !set.get().replicas().stream().allMatch(replica ->
            node.haproxy().get().servingReplicas().contains(replica.id().toString()))) {
          return false;
        }
      }
    }
    return true;
  }
}
