package dev.sluice.router.policy.poweroftwo;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.Kwargs;
import dev.sluice.router.spi.LoadView;
import dev.sluice.router.spi.PendingRequest;
import dev.sluice.router.spi.RequestRouter;
import dev.sluice.router.spi.RouterContext;
import java.util.List;
import java.util.OptionalInt;
import java.util.random.RandomGenerator;

/**
 * {@code power-of-two}: two distinct random candidates, the lower queue length first. Replicas
 * known to be at {@code max_ongoing_requests} are not sampled. A candidate whose length is
 * unknown ranks after a known one (asking about it makes the router probe it); two unknowns rank
 * in sampled order. On the reserve path a full pair makes the router back off and sample again.
 */
public final class PowerOfTwoRouter implements RequestRouter {

  public static final String KEY = "power-of-two";

  private final LoadView loads;
  private final RandomGenerator random;
  /** Indices of candidates not known to be full; reused (the router calls from one thread). */
  private int[] open = new int[0];

  PowerOfTwoRouter(LoadView loads, RandomGenerator random) {
    this.loads = loads;
    this.random = random;
  }

  public static PowerOfTwoRouter create(RouterContext context, Kwargs kwargs) {
    kwargs.allowOnly();
    return new PowerOfTwoRouter(context.loads(), context.random());
  }

  @Override
  public List<List<ReplicaInfo>> chooseReplicas(
      List<ReplicaInfo> candidates, PendingRequest request) {
    int n = candidates.size();
    if (n == 0) {
      return List.of();
    }
    // Sample directly: cheap when few replicas are full. A few misses mean many are full; then
    // count the open ones once and sample among them.
    ReplicaInfo first = null;
    ReplicaInfo second = null;
    for (int attempt = 0; attempt < 8 && second == null; attempt++) {
      ReplicaInfo candidate = candidates.get(random.nextInt(n));
      if (candidate == first || loads.isKnownFull(candidate)) {
        continue;
      }
      if (first == null) {
        first = candidate;
      } else {
        second = candidate;
      }
    }
    if (second == null) {
      return sampleAmongOpen(candidates);
    }
    return ranked(first, second);
  }

  private List<List<ReplicaInfo>> sampleAmongOpen(List<ReplicaInfo> candidates) {
    int n = candidates.size();
    if (open.length < n) {
      open = new int[n];
    }
    int count = 0;
    for (int i = 0; i < n; i++) {
      if (!loads.isKnownFull(candidates.get(i))) {
        open[count++] = i;
      }
    }
    if (count == 0) {
      return List.of();
    }
    int a = random.nextInt(count);
    ReplicaInfo first = candidates.get(open[a]);
    if (count == 1) {
      return List.of(List.of(first));
    }
    int b = random.nextInt(count - 1);
    return ranked(first, candidates.get(open[b >= a ? b + 1 : b]));
  }

  private List<List<ReplicaInfo>> ranked(ReplicaInfo first, ReplicaInfo second) {
    return better(first, second) ? List.of(List.of(first), List.of(second))
        : List.of(List.of(second), List.of(first));
  }

  /** Whether {@code a} should be tried before {@code b}. */
  private boolean better(ReplicaInfo a, ReplicaInfo b) {
    OptionalInt la = loads.queueLength(a);
    OptionalInt lb = loads.queueLength(b);
    if (la.isPresent() && lb.isPresent()) {
      return la.getAsInt() <= lb.getAsInt();
    }
    return la.isPresent() || lb.isEmpty();
  }
}
