package dev.sluice.replica.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SlotsTest {

  @Test
  void neverExceedsTheLimitAndRecordsPeakDemand() {
    Slots slots = new Slots(2);
    Slots.Slot a = slots.tryAcquire();
    Slots.Slot b = slots.tryAcquire();

    assertThat(slots.tryAcquire()).isNull();
    assertThat(slots.ongoing()).isEqualTo(2);
    assertThat(slots.peakDemand()).isEqualTo(3);

    a.release();
    a.release();
    assertThat(slots.ongoing()).isEqualTo(1);
    assertThat(slots.tryAcquire()).isNotNull();
    b.release();
    assertThat(slots.peakDemand()).isEqualTo(3);
  }
}
