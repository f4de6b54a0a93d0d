package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.config.AutoscalingConfig;
import org.junit.jupiter.api.Test;

class AutoscalerTest {

  private static final long SECOND = 1_000_000_000L;

  private static AutoscalingConfig config(int min, int max, double upDelay, double downDelay,
      double upSmoothing, double downSmoothing) {
    return new AutoscalingConfig(true, min, max, min, 2.0, upDelay, downDelay, 30, 10,
        upSmoothing, downSmoothing);
  }

  @Test
  void scalesUpOnlyAfterTheHigherCountHeldForTheUpscaleDelay() {
    Autoscaler autoscaler = new Autoscaler(config(1, 10, 3, 600, 1, 1), 2);

    assertThat(autoscaler.evaluate(0, 12, 2)).isEmpty();
    assertThat(autoscaler.desired()).as("12 ongoing / 2 per replica").isEqualTo(6);
    assertThat(autoscaler.evaluate(2 * SECOND, 12, 2)).isEmpty();
    var decision = autoscaler.evaluate(3 * SECOND, 12, 2).orElseThrow();

    assertThat(decision.from()).isEqualTo(2);
    assertThat(decision.to()).isEqualTo(6);
    assertThat(decision.reason()).contains("upscale_delay_s 3.0");
    assertThat(autoscaler.target()).isEqualTo(6);
  }

  @Test
  void aDipInTheLoadRestartsTheDelay() {
    Autoscaler autoscaler = new Autoscaler(config(1, 10, 3, 600, 1, 1), 2);
    autoscaler.evaluate(0, 12, 2);
    autoscaler.evaluate(2 * SECOND, 4, 2);
    assertThat(autoscaler.evaluate(4 * SECOND, 12, 2)).as("held 0 s since the dip").isEmpty();
    assertThat(autoscaler.evaluate(7 * SECOND, 12, 2)).isPresent();
  }

  @Test
  void scalesDownAfterTheDownscaleDelayAndStaysWithinBounds() {
    Autoscaler autoscaler = new Autoscaler(config(2, 5, 0, 10, 1, 1), 5);
    assertThat(autoscaler.evaluate(0, 0, 5)).isEmpty();
    assertThat(autoscaler.evaluate(10 * SECOND, 0, 5).orElseThrow().to())
        .as("never under min_replicas").isEqualTo(2);
    assertThat(autoscaler.evaluate(11 * SECOND, 1000, 2).orElseThrow().to())
        .as("never over max_replicas (no upscale delay)").isEqualTo(5);
  }

  @Test
  void smoothingMovesPartWayTowardTheLoad() {
    Autoscaler autoscaler = new Autoscaler(config(1, 100, 0, 0, 0.5, 0.5), 4);
    // 4 replicas at 4 ongoing each = ratio 2; halfway: 1.5 -> 6 replicas
    assertThat(autoscaler.evaluate(0, 16, 4).orElseThrow().to()).isEqualTo(6);
  }

  @Test
  void nothingIsDecidedWithoutRunningReplicas() {
    Autoscaler autoscaler = new Autoscaler(config(1, 4, 0, 0, 1, 1), 1);
    assertThat(autoscaler.evaluate(0, 50, 0)).isEmpty();
    assertThat(autoscaler.target()).isEqualTo(1);
  }
}
