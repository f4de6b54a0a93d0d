package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RolloutTest {

  private static final Rollout.Surge ONE = new Rollout.Surge(1, 0);
  /** Every RUNNING replica serves (its node is reachable). */
  private static final java.util.function.Predicate<ReplicaRecord> RUNNING =
      ReplicaRecord::isRunning;
  private static final DeploymentId DEPLOYMENT = new DeploymentId("llm", "sim");
  private int serial;

  private ReplicaRecord replica(String version, ReplicaState state, int ongoing) {
    ReplicaInfo info = new ReplicaInfo(ReplicaId.random(DEPLOYMENT), "node", "h", 1, 8, state,
        List.of("sim"));
    ReplicaRecord record = new ReplicaRecord(info, null, version, serial++);
    record.ongoing = ongoing;
    return record;
  }

  @Test
  void scalingOutStartsEveryMissingReplicaAtOnce() {
    List<ReplicaRecord> live = List.of(replica("v1", ReplicaState.RUNNING, 0));
    assertThat(Rollout.plan(live, "v1", 8, ONE, RUNNING)).isEqualTo(new Rollout.Plan(7, List.of()));
  }

  @Test
  void scalingInDrainsStartingReplicasFirstThenTheLeastBusy() {
    ReplicaRecord busy = replica("v1", ReplicaState.RUNNING, 9);
    ReplicaRecord idle = replica("v1", ReplicaState.RUNNING, 0);
    ReplicaRecord quiet = replica("v1", ReplicaState.RUNNING, 2);
    ReplicaRecord starting = replica("v1", ReplicaState.STARTING, 0);

    Rollout.Plan plan = Rollout.plan(List.of(busy, idle, quiet, starting), "v1", 1, ONE, RUNNING);

    assertThat(plan.start()).isZero();
    assertThat(plan.drain()).containsExactly(starting, idle, quiet);
  }

  @Test
  void aRollingUpdateWithASurgeOfOneReplacesOneReplicaAtATimeAndNeverDropsBelowTheTarget() {
    rollOut(3, new Rollout.Surge(1, 0), 1);
  }

  @Test
  void aRollingUpdateStartsUpToItsSurgeAtATimeAndNeverDropsBelowTheTarget() {
    rollOut(10, Rollout.Surge.parse("k", "20%"), 2);
    rollOut(11, Rollout.Surge.parse("k", "20%"), 3);
    rollOut(4, Rollout.Surge.parse("k", "3"), 3);
  }

  /**
   * Rolls {@code target} old replicas over to a new version, one reconcile per step, where one
   * starting replica comes up per step; checks every step's bounds and the end state.
   */
  private void rollOut(int target, Rollout.Surge surge, int expectedSurge) {
    List<ReplicaRecord> replicas = new ArrayList<>();
    for (int i = 0; i < target; i++) {
      replicas.add(replica("old", ReplicaState.RUNNING, i % 3));
    }
    int mostStarted = 0;
    for (int step = 0; step < 10 * target; step++) {
      List<ReplicaRecord> live = replicas.stream().filter(ReplicaRecord::isLive).toList();
      Rollout.Plan plan = Rollout.plan(live, "new", target, surge, RUNNING);
      plan.drain().forEach(r -> r.info = r.info.withState(ReplicaState.DRAINING));
      long running = replicas.stream().filter(ReplicaRecord::isRunning).count();
      assertThat(running).as("running replicas at step %d", step).isGreaterThanOrEqualTo(target);
      for (int i = 0; i < plan.start(); i++) {
        replicas.add(replica("new", ReplicaState.STARTING, 0));
      }
      long starting = replicas.stream().filter(r -> r.state() == ReplicaState.STARTING).count();
      assertThat(starting).as("new replicas starting at step %d", step)
          .isLessThanOrEqualTo(expectedSurge);
      assertThat(replicas.stream().filter(ReplicaRecord::isLive).count())
          .as("live replicas at step %d", step).isLessThanOrEqualTo(target + expectedSurge);
      mostStarted = Math.max(mostStarted, plan.start());
      replicas.stream().filter(r -> r.state() == ReplicaState.STARTING).findFirst()
          .ifPresent(r -> r.info = r.info.withState(ReplicaState.RUNNING));
    }
    assertThat(mostStarted).as("the most started in one step").isEqualTo(expectedSurge);
    assertThat(replicas.stream().filter(ReplicaRecord::isLive))
        .hasSize(target).allSatisfy(r -> assertThat(r.specVersion).isEqualTo("new"));
    assertThat(replicas.stream().filter(r -> r.specVersion.equals("old")))
        .allSatisfy(r -> assertThat(r.state()).isEqualTo(ReplicaState.DRAINING));
  }

  @Test
  void aSurgeIsACountOrAShareOfTheTargetRoundedUpAndAtLeastOne() {
    assertThat(Rollout.Surge.parse("k", "20%").of(10)).isEqualTo(2);
    assertThat(Rollout.Surge.parse("k", "20%").of(11)).isEqualTo(3);
    assertThat(Rollout.Surge.parse("k", "20%").of(3)).isEqualTo(1);
    assertThat(Rollout.Surge.parse("k", " 100% ").of(7)).isEqualTo(7);
    assertThat(Rollout.Surge.parse("k", "2").of(100)).isEqualTo(2);
    for (String bad : List.of("0", "-1", "0%", "101%", "abc", "", "%", "2.5")) {
      assertThatThrownBy(() -> Rollout.Surge.parse("sluice.controller.rolling-update-max-surge",
          bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("sluice.controller.rolling-update-max-surge: \"" + bad + "\"");
    }
  }

  @Test
  void theLeastBusyOldReplicaIsReplacedFirst() {
    ReplicaRecord busy = replica("old", ReplicaState.RUNNING, 5);
    ReplicaRecord idle = replica("old", ReplicaState.RUNNING, 0);
    ReplicaRecord fresh = replica("new", ReplicaState.RUNNING, 0);

    assertThat(Rollout.plan(List.of(busy, idle, fresh), "new", 2, ONE, RUNNING).drain())
        .containsExactly(idle);
  }

  @Test
  void scalingToZeroDrainsEverything() {
    ReplicaRecord a = replica("v1", ReplicaState.RUNNING, 0);
    ReplicaRecord b = replica("v0", ReplicaState.RUNNING, 0);
    Rollout.Plan plan = Rollout.plan(List.of(a, b), "v1", 0, ONE, RUNNING);
    assertThat(plan.start()).isZero();
    assertThat(plan.drain()).containsExactlyInAnyOrder(a, b);
  }

  @Test
  void anOldReplicaOnAnUnreachableNodeDoesNotCountAsRunning() {
    ReplicaRecord lost = replica("old", ReplicaState.RUNNING, 9);
    ReplicaRecord busy = replica("old", ReplicaState.RUNNING, 5);
    ReplicaRecord quiet = replica("old", ReplicaState.RUNNING, 1);
    ReplicaRecord fresh = replica("new", ReplicaState.RUNNING, 0);

    Rollout.Plan plan = Rollout.plan(List.of(lost, busy, quiet, fresh), "new", 3, ONE,
        r -> r.isRunning() && r != lost);

    assertThat(plan.drain()).as("the lost one goes; the 3 serving ones stay")
        .containsExactly(lost);
    assertThat(Rollout.plan(List.of(lost, busy, quiet, fresh), "new", 3, ONE, RUNNING).drain())
        .as("all reachable: the least busy old one goes").containsExactly(quiet);
  }
}
