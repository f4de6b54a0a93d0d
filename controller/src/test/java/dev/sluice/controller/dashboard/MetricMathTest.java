package dev.sluice.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.core.metrics.NodeStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MetricMathTest {

  private static NodeStats.Sample sample(String name, double value, String... labels) {
    return new NodeStats.Sample(name, List.of(labels), value);
  }

  /** A histogram's cumulative buckets (bounds 0.1, 0.2, 0.4, +Inf) for one replica. */
  private static List<NodeStats.Sample> histogram(String replica, double... cumulative) {
    String[] bounds = {"0.1", "0.2", "0.4", "+Inf"};
    List<NodeStats.Sample> samples = new ArrayList<>();
    for (int i = 0; i < bounds.length; i++) {
      samples.add(sample("h_bucket", cumulative[i], "replica", replica, "le", bounds[i]));
    }
    return samples;
  }

  private static NodeStatsStore.Span span(String node, long fromMs, List<NodeStats.Sample> from,
      long toMs, List<NodeStats.Sample> to) {
    return new NodeStatsStore.Span(new NodeStats(node, fromMs, from), new NodeStats(node, toMs,
        to));
  }

  @Test
  void ratesSumOverNodesAndTreatACounterThatWentDownAsARestart() {
    var a = span("a", 0, List.of(sample("c_total", 100, "status", "200")), 2000,
        List.of(sample("c_total", 140, "status", "200")));
    var b = span("b", 0, List.of(sample("c_total", 500, "status", "200")), 1000,
        List.of(sample("c_total", 10, "status", "200")));  // restarted: 10 since then
    assertThat(MetricMath.rate(List.of(a, b), "c_total", MetricMath.any()))
        .isCloseTo(40 / 2.0 + 10 / 1.0, within(1e-9));
  }

  @Test
  void ratesSplitByLabelAndASingleReportHasNoRateYet() {
    var a = span("a", 0, List.of(sample("c_total", 1, "reason", "x"),
            sample("c_total", 5, "reason", "y")), 1000,
        List.of(sample("c_total", 3, "reason", "x"), sample("c_total", 5, "reason", "y")));
    NodeStats only = new NodeStats("b", 1000, List.of(sample("c_total", 50, "reason", "x")));
    var b = new NodeStatsStore.Span(only, only);
    assertThat(MetricMath.rateBy(List.of(a, b), "c_total", MetricMath.any(), "reason"))
        .containsEntry("x", 2.0).containsEntry("y", 0.0);
  }

  @Test
  void quantileInterpolatesWithinTheBucketAcrossNodesAndSeries() {
    // Increases: node a, replica r1: 10 in (0, 0.1]; node b, replica r2: 10 in (0.1, 0.2].
    var a = span("a", 0, histogram("r1", 5, 5, 5, 5), 1000, histogram("r1", 15, 15, 15, 15));
    var b = span("b", 0, histogram("r2", 0, 0, 0, 0), 1000, histogram("r2", 0, 10, 10, 10));
    List<NodeStatsStore.Span> spans = List.of(a, b);
    assertThat(MetricMath.quantile(spans, "h", MetricMath.any(), 0.5))
        .isCloseTo(0.1, within(1e-9));
    assertThat(MetricMath.quantile(spans, "h", MetricMath.any(), 0.75))
        .isCloseTo(0.15, within(1e-9));
    assertThat(MetricMath.quantile(spans, "h", MetricMath.where("replica", "r1"), 0.5))
        .isCloseTo(0.05, within(1e-9));
  }

  @Test
  void quantileByLabelIsEachValuesOwnQuantileAndLeavesOutTheIdle() {
    var a = span("a", 0, join(histogram("r1", 5, 5, 5, 5), histogram("r3", 2, 2, 2, 2)), 1000,
        join(histogram("r1", 15, 15, 15, 15), histogram("r3", 2, 2, 2, 2)));
    var b = span("b", 0, histogram("r2", 0, 0, 0, 0), 1000, histogram("r2", 0, 10, 10, 10));
    List<NodeStatsStore.Span> spans = List.of(a, b);
    var byReplica = MetricMath.quantileBy(spans, "h", MetricMath.any(), "replica", 0.5);
    assertThat(byReplica).containsOnlyKeys("r1", "r2");
    for (String replica : List.of("r1", "r2")) {
      assertThat(byReplica.get(replica)).as(replica).isEqualTo(MetricMath.quantile(spans, "h",
          MetricMath.where("replica", replica), 0.5));
    }
    assertThat(byReplica.get("r2")).isCloseTo(0.15, within(1e-9));
  }

  private static List<NodeStats.Sample> join(List<NodeStats.Sample> a,
      List<NodeStats.Sample> b) {
    List<NodeStats.Sample> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  @Test
  void quantileOfNothingObservedIsNullAndAboveTheLastBoundIsThatBound() {
    var idle = span("a", 0, histogram("r1", 3, 3, 3, 3), 1000, histogram("r1", 3, 3, 3, 3));
    assertThat(MetricMath.quantile(List.of(idle), "h", MetricMath.any(), 0.5)).isNull();
    var slow = span("a", 0, histogram("r1", 0, 0, 0, 0), 1000, histogram("r1", 0, 0, 0, 4));
    assertThat(MetricMath.quantile(List.of(slow), "h", MetricMath.any(), 0.99)).isEqualTo(0.4);
  }

  @Test
  void theStoreLeavesOutNodesThatStoppedReporting() {
    NodeStatsStore store = new NodeStatsStore();
    store.add(new NodeStats("old", 0, List.of()));
    store.add(new NodeStats("live", 9_000, List.of()));
    store.add(new NodeStats("live", 10_000, List.of()));
    store.add(new NodeStats("live", 11_000, List.of()));
    var spans = store.spans(11_500, 1_000);
    assertThat(spans).singleElement().satisfies(span -> {
      assertThat(span.latest().atMillis()).isEqualTo(11_000);
      assertThat(span.earlier().atMillis()).isEqualTo(10_000);
    });
    assertThat(store.spans(11_500, 60_000)).singleElement()
        .satisfies(span -> assertThat(span.earlier().atMillis()).isEqualTo(9_000));
  }

  @Test
  void aCounterThatMovesInBurstsReadsTheSameRateAtEveryRefresh() {
    // A node reports about once a second, and a counter jumps by 20 about once a second (the
    // controller's tick answering that second's health checks), the two timers in phase with a
    // few ms of jitter each: a burst lands before or after a report by chance. 20 a second,
    // whichever reports a refresh's window holds.
    Random jitter = new Random(7);
    long[] bursts = new long[45];
    for (int k = 0; k < bursts.length; k++) {
      bursts[k] = k * 1_000L + jitter.nextInt(41);
    }
    NodeStatsStore store = new NodeStatsStore();
    List<Double> shown = new ArrayList<>();
    for (int report = 0; report <= 40; report++) {
      long at = report * 1_000L + jitter.nextInt(41);
      long burstsSoFar = java.util.Arrays.stream(bursts).filter(burst -> burst <= at).count();
      store.add(new NodeStats("a", at, List.of(sample("c_total", 20.0 * burstsSoFar))));
      if (report >= 12) {
        shown.add(MetricMath.rate(store.spans(at + 10, DashboardFeed.RATE_WINDOW_MS), "c_total",
            MetricMath.any()));
      }
    }
    assertThat(shown).hasSize(29).allSatisfy(rate -> assertThat(rate).isCloseTo(20.0,
        within(2.5)));
  }
}
