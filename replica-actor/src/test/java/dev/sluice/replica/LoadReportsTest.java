package dev.sluice.replica;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaLoad;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LoadReportsTest {

  private static final long MS = 1_000_000L;
  private static final ReplicaId REPLICA = ReplicaId.parse("llm#sim#abcd1234");

  private static ReplicaLoad load(int ongoing) {
    return new ReplicaLoad(REPLICA, ongoing, 0, 8, 0, 0);
  }

  @Test
  void reportsTheFirstLoadAChangeAndAHeartbeatButNotARepeat() {
    LoadReports reports = new LoadReports(Duration.ofSeconds(1));
    assertThat(reports.due(load(3), 10, 0)).isTrue();
    assertThat(reports.due(load(3), 10, 50 * MS)).isFalse();
    assertThat(reports.due(load(4), 10, 100 * MS)).isTrue();
    assertThat(reports.due(load(4), 10, 1_050 * MS)).isFalse();
    assertThat(reports.due(load(4), 10, 1_100 * MS)).isTrue();
  }

  @Test
  void reportsASteadyCountWhenRequestsWereAdmittedSinceTheLastReport() {
    LoadReports reports = new LoadReports(Duration.ofSeconds(1));
    assertThat(reports.due(load(3), 10, 0)).isTrue();
    assertThat(reports.due(load(3), 13, 50 * MS)).as("3 finished, 3 arrived").isTrue();
    assertThat(reports.due(load(3), 13, 100 * MS)).isFalse();
  }
}
