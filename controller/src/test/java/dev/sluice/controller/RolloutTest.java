package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RolloutTest {

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
    assertThat(Rollout.plan(live, "v1", 8)).isEqualTo(new Rollout.Plan(7, List.of()));
  }

  @Test
  void scalingInDrainsStartingReplicasFirstThenTheLeastBusy() {
    ReplicaRecord busy = replica("v1", ReplicaState.RUNNING, 9);
    ReplicaRecord idle = replica("v1", ReplicaState.RUNNING, 0);
    ReplicaRecord quiet = replica("v1", ReplicaState.RUNNING, 2);
    ReplicaRecord starting = replica("v1", ReplicaState.STARTING, 0);

    Rollout.Plan plan = Rollout.plan(List.of(busy, idle, quiet, starting), "v1", 1);

    assertThat(plan.start()).isZero();
    assertThat(plan.drain()).containsExactly(starting, idle, quiet);
  }

  @Test
  void aRollingUpdateReplacesOneReplicaAtATimeAndNeverDropsBelowTheTarget() {
    List<ReplicaRecord> replicas = new ArrayList<>(List.of(
        replica("old", ReplicaState.RUNNING, 3), replica("old", ReplicaState.RUNNING, 1),
        replica("old", ReplicaState.RUNNING, 2)));
    int target = 3;
    for (int step = 0; step < 20; step++) {
      List<ReplicaRecord> live = replicas.stream().filter(ReplicaRecord::isLive).toList();
      Rollout.Plan plan = Rollout.plan(live, "new", target);
      assertThat(plan.start()).as("one new replica at a time").isLessThanOrEqualTo(1);
      plan.drain().forEach(r -> r.info = r.info.withState(ReplicaState.DRAINING));
      long running = replicas.stream().filter(ReplicaRecord::isRunning).count();
      assertThat(running).as("running replicas at step %d", step).isGreaterThanOrEqualTo(target);
      for (int i = 0; i < plan.start(); i++) {
        replicas.add(replica("new", ReplicaState.STARTING, 0));
      }
      replicas.stream().filter(r -> r.state() == ReplicaState.STARTING).findFirst()
          .ifPresent(r -> r.info = r.info.withState(ReplicaState.RUNNING));
    }
    assertThat(replicas.stream().filter(ReplicaRecord::isLive))
        .hasSize(target).allSatisfy(r -> assertThat(r.specVersion).isEqualTo("new"));
    assertThat(replicas.stream().filter(r -> r.specVersion.equals("old")))
        .allSatisfy(r -> assertThat(r.state()).isEqualTo(ReplicaState.DRAINING));
  }

  @Test
  void theLeastBusyOldReplicaIsReplacedFirst() {
    ReplicaRecord busy = replica("old", ReplicaState.RUNNING, 5);
    ReplicaRecord idle = replica("old", ReplicaState.RUNNING, 0);
    ReplicaRecord fresh = replica("new", ReplicaState.RUNNING, 0);

    assertThat(Rollout.plan(List.of(busy, idle, fresh), "new", 2).drain()).containsExactly(idle);
  }

  @Test
  void scalingToZeroDrainsEverything() {
    ReplicaRecord a = replica("v1", ReplicaState.RUNNING, 0);
    ReplicaRecord b = replica("v0", ReplicaState.RUNNING, 0);
    Rollout.Plan plan = Rollout.plan(List.of(a, b), "v1", 0);
    assertThat(plan.start()).isZero();
    assertThat(plan.drain()).containsExactlyInAnyOrder(a, b);
  }
}
