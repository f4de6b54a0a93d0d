package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BackoffTest {

  private static final long MS = 1_000_000;

  @Test
  void doublesPerFailureUpToTheMaximumAndResetsOnSuccess() {
    Backoff backoff = new Backoff(100 * MS, 350 * MS, () -> {});
    long now = System.nanoTime();
    assertThat(backoff.mayStart(now)).isTrue();

    backoff.failed("engine exited");
    assertThat(backoff.mayStart(System.nanoTime())).isFalse();
    assertThat(backoff.mayStart(System.nanoTime() + 101 * MS)).isTrue();

    backoff.failed("engine exited");
    assertThat(backoff.mayStart(System.nanoTime() + 150 * MS)).isFalse();
    assertThat(backoff.mayStart(System.nanoTime() + 201 * MS)).isTrue();

    backoff.failed("engine exited");
    backoff.failed("engine exited");
    assertThat(backoff.mayStart(System.nanoTime() + 349 * MS)).isFalse();
    assertThat(backoff.mayStart(System.nanoTime() + 351 * MS)).isTrue();

    backoff.succeeded();
    assertThat(backoff.mayStart(System.nanoTime())).isTrue();
    assertThat(backoff.failures()).isZero();
  }
}
