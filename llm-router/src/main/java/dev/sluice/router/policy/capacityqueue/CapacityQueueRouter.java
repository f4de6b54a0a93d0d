package dev.sluice.router.policy.capacityqueue;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.policy.poweroftwo.PowerOfTwoRouter;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.RequestRouter;
import dev.sluice.router.spi.RouterContext;
import java.time.Duration;
import java.util.List;

/**
 * {@code capacity-queue}: the router asks the CapacityQueue singleton for a lease per request
 * instead of ranking replicas itself. This class holds the policy's settings and the fallback:
 * its {@link #chooseReplicas} is {@code power-of-two}, used for a request after
 * {@link #maxFaults()} faults talking to the queue (unreachable, timing out, failing).
 * Exhaustion is not a fault: the router backs off until a slot frees or the request's routing
 * budget ends ({@code 503 capacity_exhausted}).
 */
public final class CapacityQueueRouter implements RequestRouter {

  public static final String KEY = "capacity-queue";

  private final Duration acquireTimeout;
  private final int maxFaults;
  private final PowerOfTwoRouter fallback;

  CapacityQueueRouter(Duration acquireTimeout, int maxFaults, PowerOfTwoRouter fallback) {
    this.acquireTimeout = acquireTimeout;
    this.maxFaults = maxFaults;
    this.fallback = fallback;
  }

  public static CapacityQueueRouter create(RouterContext context, Kwargs kwargs) {
    kwargs.allowOnly("acquire_timeout_s", "max_faults");
    double timeout = kwargs.atLeast("acquire_timeout_s", 0.5, 0.0);
    return new CapacityQueueRouter(Duration.ofMillis((long) (timeout * 1000)),
        kwargs.positiveInt("max_faults", 3),
        PowerOfTwoRouter.create(context, new Kwargs(PowerOfTwoRouter.KEY, java.util.Map.of())));
  }

  /** How long one acquire may wait in the queue's FIFO before it is told "exhausted". */
  public Duration acquireTimeout() {
    return acquireTimeout;
  }

  /** Faults talking to the queue after which a request falls back to power-of-two. */
  public int maxFaults() {
    return maxFaults;
  }

  /** The power-of-two fallback. */
  @Override
  public List<List<ReplicaInfo>> chooseReplicas(
      List<ReplicaInfo> candidates, PendingRequest request) {
    return fallback.chooseReplicas(candidates, request);
  }
}
