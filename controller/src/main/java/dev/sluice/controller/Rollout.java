package dev.sluice.controller;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What one deployment needs next, from its live replicas (starting or running), the spec version
 * it should run and its target count: how many replicas to start and which to drain. The rules:
 * <ul>
 *   <li>scale out: start what is missing at once; during a rolling update, one at a time;
 *   <li>scale in: drain the replicas of the current version beyond the target, those not yet
 *       running first, then the running ones with the fewest ongoing requests;
 *   <li>rolling update (live replicas of another version): start one of the new version, and
 *       drain an old one each time the replicas running would stay at or above the target
 *       without it, so the count running never drops below the target.
 * </ul>
 */
final class Rollout {

  /** Start {@code start} replicas; drain {@code drain}. */
  record Plan(int start, List<ReplicaRecord> drain) {}

  private Rollout() {}

  /** The order replicas are drained in: not yet running first, then the least busy. */
  static final Comparator<ReplicaRecord> DRAIN_ORDER =
      Comparator.comparing(ReplicaRecord::isRunning)
          .thenComparingInt(record -> record.ongoing)
          .thenComparing(record -> -record.requestedAtNanos);

  static Plan plan(List<ReplicaRecord> live, String version, int target) {
    List<ReplicaRecord> current = new ArrayList<>();
    List<ReplicaRecord> outdated = new ArrayList<>();
    for (ReplicaRecord record : live) {
      (record.specVersion.equals(version) ? current : outdated).add(record);
    }
    List<ReplicaRecord> drain = new ArrayList<>();
    current.sort(DRAIN_ORDER);
    for (int i = 0; i < current.size() - target; i++) {
      drain.add(current.get(i));
    }
    int running = (int) live.stream().filter(ReplicaRecord::isRunning).count()
        - (int) drain.stream().filter(ReplicaRecord::isRunning).count();
    outdated.sort(DRAIN_ORDER);
    for (ReplicaRecord old : outdated) {
      if (!old.isRunning()) {
        drain.add(old);
      } else if (running - 1 >= target) {
        drain.add(old);
        running--;
      }
    }
    int missing = Math.max(0, target - current.size());
    boolean rolling = outdated.stream().anyMatch(old -> !drain.contains(old));
    boolean startingNew = current.stream().anyMatch(record -> !record.isRunning());
    int start = !rolling ? missing : startingNew ? 0 : Math.min(1, missing);
    return new Plan(start, List.copyOf(drain));
  }
}
