package dev.sluice.router.policy.roundrobin;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.RequestRouter;
import dev.sluice.router.spi.RouterContext;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code round-robin}: a cursor that starts at a random offset and advances by one per call. Ranks
 * are single replicas in cursor order, so on the reserve path a full replica falls through to the
 * next one.
 */
public final class RoundRobinRouter implements RequestRouter {

  public static final String KEY = "round-robin";

  private long cursor;

  RoundRobinRouter(long start) {
    this.cursor = start;
  }

  public static RoundRobinRouter create(RouterContext context, Kwargs kwargs) {
    kwargs.allowOnly();
    return new RoundRobinRouter(context.random().nextInt(1 << 16));
  }

  @Override
  public List<List<ReplicaInfo>> chooseReplicas(
      List<ReplicaInfo> candidates, PendingRequest request) {
    int n = candidates.size();
    if (n == 0) {
      return List.of();
    }
    int start = (int) Long.remainderUnsigned(cursor++, n);
    List<List<ReplicaInfo>> ranks = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ranks.add(List.of(candidates.get((start + i) % n)));
    }
    return ranks;
  }
}
