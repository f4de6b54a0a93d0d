package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.core.ReplicaId;
import org.junit.jupiter.api.Test;

class LoadHistoryTest {

  private static final long SECOND = 1_000_000_000L;
  private static final long HOUR = 3600 * SECOND;
  private static final ReplicaId REPLICA = ReplicaId.parse("llm#sim#abcd1234");

  @Test
  void averagesOverTimeNotOverReports() {
    LoadHistory history = new LoadHistory();
    history.record(REPLICA, 0, 10, HOUR);
    for (int i = 1; i <= 9; i++) {  // many reports of 0 in the second half
      history.record(REPLICA, 5 * SECOND + i * 50_000_000L, 0, HOUR);
    }
    assertThat(history.average(REPLICA, 10 * SECOND, 10 * SECOND))
        .isCloseTo(10 * 5.05 / 10, within(0.01));
  }

  @Test
  void onlyTheWindowCountsAndTheValueInForceAtItsStartToo() {
    LoadHistory history = new LoadHistory();
    history.record(REPLICA, 0, 100, HOUR);
    history.record(REPLICA, 10 * SECOND, 4, HOUR);
    assertThat(history.average(REPLICA, 12 * SECOND, 4 * SECOND))
        .as("2 s of 100, 2 s of 4").isCloseTo(52, within(0.01));
    assertThat(history.average(REPLICA, 20 * SECOND, 5 * SECOND)).isEqualTo(4);
  }

  @Test
  void anUnknownReplicaWeighsNothing() {
    LoadHistory history = new LoadHistory();
    history.record(REPLICA, 0, 3, HOUR);
    history.forget(REPLICA);
    assertThat(history.average(REPLICA, SECOND, SECOND)).isZero();
  }

  @Test
  void aReplicaKeepsOnlyTheSamplesOfItsWindow() {
    LoadHistory history = new LoadHistory();
    for (int i = 0; i < 100_000; i++) {  // 20 reports a second for 5,000 s
      history.record(REPLICA, i * 50_000_000L, i % 7, 10 * SECOND);
    }
    assertThat(history.size(REPLICA)).as("10 s of reports and the one in force before")
        .isBetween(200, 202);
    assertThat(history.average(REPLICA, 100_000 * 50_000_000L, 10 * SECOND))
        .isCloseTo(3, within(0.1));
  }
}
