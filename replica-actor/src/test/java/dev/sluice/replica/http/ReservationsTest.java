package dev.sluice.replica.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReservationsTest {

  @Test
  void reserveTakesASlotAndReportsTheTrueOngoingCount() {
    Slots slots = new Slots(2);
    Reservations reservations = new Reservations(slots, Duration.ofSeconds(10));

    var first = reservations.reserve().orElseThrow();
    var second = reservations.reserve().orElseThrow();

    assertThat(first.ongoing()).isEqualTo(1);
    assertThat(second.ongoing()).isEqualTo(2);
    assertThat(first.token()).isNotEqualTo(second.token()).hasSize(32);
    assertThat(reservations.reserve()).isEmpty();
  }

  @Test
  void consumingHandsOverTheSameSlotWithoutTakingAnother() {
    Slots slots = new Slots(1);
    Reservations reservations = new Reservations(slots, Duration.ofSeconds(10));
    String token = reservations.reserve().orElseThrow().token();

    Slots.Slot slot = reservations.consume(token).orElseThrow();

    assertThat(slots.ongoing()).isEqualTo(1);
    assertThat(reservations.consume(token)).isEmpty();
    slot.release();
    assertThat(slots.ongoing()).isZero();
  }

  @Test
  void releaseIsIdempotentAndIgnoresUnknownTokens() {
    Slots slots = new Slots(1);
    Reservations reservations = new Reservations(slots, Duration.ofSeconds(10));
    String token = reservations.reserve().orElseThrow().token();

    assertThat(reservations.release(token)).isTrue();
    assertThat(reservations.release(token)).isFalse();
    assertThat(reservations.release("nope")).isFalse();
    assertThat(slots.ongoing()).isZero();
  }

  @Test
  void unconsumedTokensExpire() {
    Slots slots = new Slots(2);
    Reservations reservations = new Reservations(slots, Duration.ofMillis(100));
    String token = reservations.reserve().orElseThrow().token();

    assertThat(reservations.expire(System.nanoTime())).isZero();
    assertThat(reservations.expire(System.nanoTime() + Duration.ofMillis(150).toNanos()))
        .isEqualTo(1);

    assertThat(slots.ongoing()).isZero();
    assertThat(reservations.consume(token)).isEmpty();
  }
}
