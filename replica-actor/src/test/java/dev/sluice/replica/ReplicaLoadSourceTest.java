package dev.sluice.replica;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.config.EngineConfig;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.replica.engine.SimulatedEngine;
import dev.sluice.replica.http.Slots;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.junit.jupiter.api.Test;

class ReplicaLoadSourceTest {

  private static final ReplicaId REPLICA = ReplicaId.parse("llm#sim#feed0001");

  /** How many series of this test's replica the registry holds. */
  private static long series() {
    long count = 0;
    for (MetricSnapshot snapshot : SluiceMetrics.global().registry().scrape()) {
      for (DataPointSnapshot point : snapshot.getDataPoints()) {
        if (REPLICA.toString().equals(point.getLabels().get("replica"))) {
          count++;
        }
      }
    }
    return count;
  }

  @Test
  void dueWhenTheSlotsMoveAndSilentOnceClosedWithoutSettingItsGaugesAgain() {
    Slots slots = new Slots(4);
    ReplicaMetrics metrics = new ReplicaMetrics(REPLICA);
    ReplicaLoadSource source = new ReplicaLoadSource(REPLICA, new SimulatedEngine(
        new EngineConfig(EngineConfig.SIMULATED, 0, 0, 4, 4096, 4, 4096)), slots, metrics);

    assertThat(source.dueLoad()).isEqualTo(new ReplicaLoad(REPLICA, 0, 0, 4, 0, 0));
    assertThat(source.dueLoad()).as("nothing moved").isNull();
    Slots.Slot slot = slots.tryAcquire();
    assertThat(source.dueLoad()).isEqualTo(new ReplicaLoad(REPLICA, 1, 0, 4, 0, 0));
    slot.release();
    slots.tryAcquire().release();
    assertThat(source.dueLoad()).as("back to 0, one more admitted")
        .isEqualTo(new ReplicaLoad(REPLICA, 0, 0, 4, 0, 0));
    assertThat(series()).isPositive();

    source.close();
    metrics.remove();
    assertThat(series()).isZero();
    slots.tryAcquire();
    assertThat(source.dueLoad()).as("a read after the replica stopped").isNull();
    assertThat(series()).as("no gauge set again for a stopped replica").isZero();
  }
}
