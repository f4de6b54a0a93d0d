package dev.sluice.router.testing;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.spi.LoadView;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;

/** A load view set by the test; replicas it was not told about are unknown (estimate 0). */
public final class FakeLoads implements LoadView {

  private final Map<String, Integer> lengths = new HashMap<>();

  public FakeLoads set(ReplicaInfo replica, int length) {
    lengths.put(replica.id().uniqueId(), length);
    return this;
  }

  public void add(ReplicaInfo replica, int delta) {
    lengths.merge(replica.id().uniqueId(), delta, Integer::sum);
  }

  @Override
  public OptionalInt queueLength(ReplicaInfo replica) {
    Integer length = lengths.get(replica.id().uniqueId());
    return length == null ? OptionalInt.empty() : OptionalInt.of(length);
  }

  @Override
  public int estimatedLoad(ReplicaInfo replica) {
    return lengths.getOrDefault(replica.id().uniqueId(), 0);
  }
}
