package dev.sluice.controller;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;

/**
 * What one deployment needs next, from its live replicas (starting or running), the spec version
 * it should run and its target count: how many replicas to start and which to drain. The rules:
 * <ul>
 *   <li>scale out: start what is missing at once; during a rolling update, at most the surge
 *       ({@link Surge}) of new replicas starting at a time;
 *   <li>scale in: drain the replicas of the current version beyond the target, those not yet
 *       running first, then the running ones with the fewest ongoing requests;
 *   <li>rolling update (live replicas of another version): start up to the surge of the new
 *       version, and drain an old one each time the replicas running would stay at or above the
 *       target without it, so the count running never drops below the target and the live count
 *       never exceeds the target plus the surge.
 * </ul>
 */
final class Rollout {

  /** Start {@code start} replicas; drain {@code drain}. */
  record Plan(int start, List<ReplicaRecord> drain) {}

  private Rollout() {}

  /**
   * How many new replicas a rolling update may start at a time beyond the target, as
   * Kubernetes' {@code maxSurge}: a count ({@code "2"}) or a share of the target ({@code
   * "20%"}, rounded up), at least one. Ray Serve replaces 20 % of a deployment at a time.
   */
  record Surge(int count, int percent) {

    static Surge parse(String key, String value) {
      String text = value.trim();
      boolean share = text.endsWith("%");
      String digits = share ? text.substring(0, text.length() - 1).trim() : text;
      int number;
      try {
        number = Integer.parseInt(digits);
      } catch (NumberFormatException e) {
        number = -1;
      }
      if (number < 1 || share && number > 100) {
        throw new IllegalArgumentException(key + ": \"" + value
            + "\" (expected: a count >= 1, such as 2, or a share of the target, such as 20%)");
      }
      return share ? new Surge(0, number) : new Surge(number, 0);
    }

    /** The new replicas that may be starting at once for this target. */
    int of(int target) {
      return percent == 0 ? count : Math.max(1, (int) Math.ceil(target * percent / 100.0));
    }
  }

  /** The order replicas are drained in: not yet running first, then the least busy. */
  static final Comparator<ReplicaRecord> DRAIN_ORDER =
      Comparator.comparing(ReplicaRecord::isRunning)
          .thenComparingInt(record -> record.ongoing)
          .thenComparing(record -> -record.requestedAtNanos);

  /**
   * The plan for {@code live} replicas. Only {@code serving} ones (RUNNING on a reachable node)
   * count as running: an old replica on an unreachable node serves nothing, so it is drained
   * like one not yet running, and never counted to let a serving one go.
   */
  static Plan plan(List<ReplicaRecord> live, String version, int target, Surge surge,
      Predicate<ReplicaRecord> serving) {
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
    int running = (int) live.stream().filter(serving).count()
        - (int) drain.stream().filter(serving).count();
    outdated.sort(DRAIN_ORDER);
    for (ReplicaRecord old : outdated) {
      if (!serving.test(old)) {
        drain.add(old);
      } else if (running - 1 >= target) {
        drain.add(old);
        running--;
      }
    }
    int missing = Math.max(0, target - current.size());
    boolean rolling = outdated.stream().anyMatch(old -> !drain.contains(old));
    int startingNew = (int) current.stream().filter(record -> !record.isRunning()).count();
    int start = !rolling ? missing
        : Math.max(0, Math.min(missing, surge.of(target) - startingNew));
    return new Plan(start, List.copyOf(drain));
  }
}
