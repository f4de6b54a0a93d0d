package dev.sluice.replica;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaLoad;
import org.junit.jupiter.api.Test;

class LoadReportsTest {

  private static final ReplicaId REPLICA = ReplicaId.parse("llm#sim#abcd1234");

  private static ReplicaLoad load(int ongoing) {
    return new ReplicaLoad(REPLICA, ongoing, 0, 8, 0, 0);
  }

  @Test
  void reportsTheFirstLoadAndAChangeButNotARepeat() {
    LoadReports reports = new LoadReports();
    assertThat(reports.due(load(3), 10)).isTrue();
    assertThat(reports.due(load(3), 10)).isFalse();
    assertThat(reports.due(load(4), 10)).isTrue();
    assertThat(reports.due(load(4), 10)).as("the node's heartbeat repeats it").isFalse();
  }

  @Test
  void reportsASteadyCountWhenRequestsWereAdmittedSinceTheLastReport() {
    LoadReports reports = new LoadReports();
    assertThat(reports.due(load(3), 10)).isTrue();
    assertThat(reports.due(load(3), 13)).as("3 finished, 3 arrived").isTrue();
    assertThat(reports.due(load(3), 13)).isFalse();
  }
}
