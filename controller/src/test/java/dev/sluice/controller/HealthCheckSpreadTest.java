package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaState;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HealthCheckSpreadTest {

  private static final long PERIOD = 10_000_000_000L;
  private static final DeploymentId DEPLOYMENT = new DeploymentId("llm", "sim");

  @Test
  void replicasStartedTogetherAreFirstCheckedAcrossOnePeriod() {
    SplittableRandom random = new SplittableRandom(7);
    long now = 1_000;
    List<Long> due = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      ReplicaRecord record = new ReplicaRecord(new ReplicaInfo(ReplicaId.random(DEPLOYMENT),
          "node", "h", 1, 8, ReplicaState.RUNNING, List.of("sim")), null, "v1", i);
      record.firstCheckWithin(now, PERIOD, random);
      due.add(record.nextCheckNanos);
    }

    assertThat(due).allSatisfy(at -> assertThat(at).isGreaterThan(now)
        .isLessThanOrEqualTo(now + PERIOD));
    assertThat(due.stream().map(at -> (at - now - 1) * 10 / PERIOD).distinct().count())
        .as("tenths of the period with a first check").isEqualTo(10);
  }
}
