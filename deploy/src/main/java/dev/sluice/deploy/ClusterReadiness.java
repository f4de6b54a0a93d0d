package dev.sluice.deploy;

import dev.sluice.core.ReplicaSet;
import dev.sluice.core.config.ApplicationConfig;
import dev.sluice.core.config.LlmConfig;
import java.time.Duration;
import java.util.Optional;

/** Waits until a local node's ingress sees every deployment at its desired replica count. */
final class ClusterReadiness {

  private ClusterReadiness() {}

  static void awaitReplicas(SluiceNode node, Duration deadline) throws InterruptedException {
    long end = System.nanoTime() + deadline.toNanos();
    while (!ready(node)) {
      if (System.nanoTime() > end) {
        throw new IllegalStateException("replicas not RUNNING and visible to the ingress within "
            + deadline.toSeconds() + " s; see the log above");
      }
      Thread.sleep(50);
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
      }
    }
    return true;
  }
}
