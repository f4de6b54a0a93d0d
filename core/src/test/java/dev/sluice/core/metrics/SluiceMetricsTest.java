package dev.sluice.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.tracer.common.SpanContext;
import io.prometheus.metrics.tracer.initializer.SpanContextSupplier;
import org.junit.jupiter.api.Test;

class SluiceMetricsTest {

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final SluiceMetrics metrics = new SluiceMetrics(registry);

  @Test
  void sameNameGivesTheSameMetricAndAnotherShapeIsRefused() {
    assertThat(metrics.counter("things", "Things.", "kind"))
        .isSameAs(metrics.counter("sluice_things", "Things.", "kind"));
    assertThatThrownBy(() -> metrics.gauge("things", "Things.", "kind"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("counter{kind}");
    assertThatThrownBy(() -> metrics.counter("things", "Things.", "other"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Sluice's requests carry no trace, so exemplars would name whatever span a tracer agent had
   * open on the thread; sampling them costs every observation a rate-limit check and every busy
   * series a timer task ten times a second. Even with a tracer present, none are sampled.
   */
  @Test
  void countersAndHistogramsSampleNoExemplarsEvenWithATracer() {
    SpanContextSupplier.setSpanContext(new SampledSpan());
    try {
      metrics.counter("events", "Events.", "kind").labelValues("a").inc();
      metrics.histogram("wait_seconds", "Waits.", SluiceMetrics.FAST_SECONDS, "kind")
          .labelValues("a").observe(2e-6);
    } finally {
      SpanContextSupplier.setSpanContext(null);
    }

    MetricSnapshots scraped = registry.scrape();

    CounterSnapshot counter = (CounterSnapshot) scraped.stream()
        .filter(s -> s.getMetadata().getName().equals("sluice_events")).findFirst().orElseThrow();
    assertThat(counter.getDataPoints()).singleElement()
        .satisfies(point -> {
          assertThat(point.getValue()).isEqualTo(1.0);
          assertThat(point.getExemplar()).isNull();
        });
    HistogramSnapshot histogram = (HistogramSnapshot) scraped.stream()
        .filter(s -> s.getMetadata().getName().equals("sluice_wait_seconds")).findFirst()
        .orElseThrow();
    assertThat(histogram.getDataPoints()).singleElement()
        .satisfies(point -> {
          assertThat(point.getCount()).isEqualTo(1);
          assertThat(point.getExemplars().size()).isZero();
        });
  }

  /** A tracer whose current span is always sampled. */
  private static final class SampledSpan implements SpanContext {
    @Override
    public String getCurrentTraceId() {
      return "0af7651916cd43dd8448eb211c80319c";
    }

    @Override
    public String getCurrentSpanId() {
      return "b7ad6b7169203331";
    }

    @Override
    public boolean isCurrentSpanSampled() {
      return true;
    }

    @Override
    public void markCurrentSpanAsExemplar() {}
  }
}
