package dev.sluice.controller;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaLoad;
import java.util.Collection;
import org.slf4j.Logger;

/**
 * The controller's autoscaling: the load reports of autoscaled deployments' replicas, each kept
 * for its deployment's look-back window ({@link LoadHistory}), and each autoscaler's decision on
 * the controller's tick. Reports of other deployments are not kept: nothing reads them.
 */
final class Autoscaling {

  private final LoadHistory loads = new LoadHistory();
  private final ControllerMetrics metrics;
  private final Logger log;

  Autoscaling(ControllerMetrics metrics, Logger log) {
    this.metrics = metrics;
    this.log = log;
  }

  /** {@code load} of a replica of {@code state}'s deployment, reported at {@code now}. */
  void reported(DeploymentState state, ReplicaLoad load, long now) {
    if (state.autoscaler != null) {
      loads.record(load.replica(), now, load.ongoing(), lookBackNanos(state));
    }
  }

  void forget(ReplicaId replica) {
    loads.forget(replica);
  }

  /** Each autoscaled deployment's autoscaler, given its running replicas' average load. */
  void evaluate(long now, Collection<DeploymentState> deployments,
      Collection<ReplicaRecord> replicas) {
    for (DeploymentState state : deployments) {
      if (state.autoscaler == null) {
        continue;
      }
      long window = lookBackNanos(state);
      double total = 0;
      int running = 0;
      for (ReplicaRecord record : replicas) {
        if (record.isRunning() && record.info.id().deploymentId().equals(state.id)) {
          total += loads.average(record.info.id(), now, window);
          running++;
        }
      }
      int from = state.autoscaler.target();
      state.autoscaler.evaluate(now, total, running).ifPresent(decision -> {
        metrics.scaled(state.id, from, decision.to());
        log.info("Autoscaling {}: {} -> {} replicas ({})", state.id, from, decision.to(),
            decision.reason());
      });
    }
  }

  private static long lookBackNanos(DeploymentState state) {
    return (long) (state.autoscaler.config().lookBackPeriodS() * 1e9);
  }
}
