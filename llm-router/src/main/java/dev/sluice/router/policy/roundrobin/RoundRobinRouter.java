package dev.sluice.router.policy.roundrobin;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.RequestRouter;
import dev.sluice.router.spi.RouterContext;
import java.util.AbstractList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

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
    return new Rotation(candidates, start);
  }

  /**
   * The candidates in cursor order, one per rank, built lazily: the pick-only path reads only the
   * first rank, so a pick costs O(1) whatever the number of replicas.
   */
  private static final class Rotation extends AbstractList<List<ReplicaInfo>>
      implements RandomAccess {
    private final List<ReplicaInfo> candidates;
    private final int start;

    Rotation(List<ReplicaInfo> candidates, int start) {
      this.candidates = candidates;
      this.start = start;
    }

    @Override
    public List<ReplicaInfo> get(int index) {
      Objects.checkIndex(index, candidates.size());
      return List.of(candidates.get((start + index) % candidates.size()));
    }

    @Override
    public int size() {
      return candidates.size();
    }
  }
}
