package dev.sluice.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

class SlidingRateTest {

  @Test
  void forgetsOutcomesOlderThanTheWindow() {
    SlidingRate rate = new SlidingRate(4);
    assertThat(rate.rate()).isZero();

    rate.record(true);
    rate.record(true);
    assertThat(rate.record(false)).isEqualTo(2.0 / 3);
    rate.record(false);
    assertThat(rate.rate()).isEqualTo(0.5);
    rate.record(false);
    rate.record(false);

    assertThat(rate.rate()).isZero();
  }

  @Test
  void metricsHelperReturnsTheSameMetricForTheSameName() {
    SluiceMetrics metrics = new SluiceMetrics(new PrometheusRegistry());

    var first = metrics.counter("test_events", "Events.", "kind");
    var second = metrics.counter("test_events", "Events.", "kind");

    assertThat(second).isSameAs(first);
    assertThatThrownBy(() -> metrics.gauge("test_events", "Events.", "kind"))
        .hasMessageContaining("already registered as counter");
    first.labelValues("a").inc();
    assertThat(metrics.registry().scrape().stream()
        .anyMatch(s -> s.getMetadata().getPrometheusName().equals("sluice_test_events")))
        .isTrue();
  }
}
