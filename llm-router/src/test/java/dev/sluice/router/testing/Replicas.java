package dev.sluice.router.testing;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaState;
import java.util.ArrayList;
import java.util.List;

/** Test replicas: ids {@code llm#m#r0000000}, {@code r0000001}, ... */
public final class Replicas {

  private Replicas() {}

  public static ReplicaInfo replica(String uid, int maxOngoing) {
    return new ReplicaInfo(new ReplicaId("llm", "m", uid), "node", "127.0.0.1", 1, maxOngoing,
        ReplicaState.RUNNING, List.of("m"));
  }

  public static ReplicaInfo replica(String uid) {
    return replica(uid, 64);
  }

  public static List<ReplicaInfo> replicas(int count) {
    return replicas(0, count);
  }

  /** Replicas numbered {@code from} .. {@code from + count - 1}. */
  public static List<ReplicaInfo> replicas(int from, int count) {
    List<ReplicaInfo> list = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      list.add(replica(String.format("r%07d", i)));
    }
    return list;
  }
}
