package dev.sluice.replica;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.replica.engine.TtftHistogram;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EngineTtftFeedTest {

  private static final double INF = Double.POSITIVE_INFINITY;
  private static final List<Double> BOUNDS = List.of(0.01, 0.02, INF);

  private static TtftHistogram histogram(long... cumulative) {
    List<Long> counts = new ArrayList<>();
    for (long count : cumulative) {
      counts.add(count);
    }
    return new TtftHistogram(BOUNDS, counts, Double.NaN);
  }

  private static List<Double> feed(EngineTtftFeed feed, TtftHistogram histogram) {
    List<Double> observed = new ArrayList<>();
    feed.feed(histogram, observed::add);
    return observed;
  }

  @Test
  void eachNewRequestIsObservedWithinItsEngineBucketSpreadEvenly() {
    EngineTtftFeed feed = new EngineTtftFeed();
    assertThat(feed.active()).isFalse();

    List<Double> first = feed(feed, histogram(2, 5, 6));
    assertThat(feed.active()).isTrue();
    assertThat(first).containsExactly(0.0025, 0.0075,
        0.01 + 0.01 / 6, 0.015, 0.01 + 0.05 / 6, Math.nextUp(0.02));

    assertThat(feed(feed, histogram(2, 6, 6))).containsExactly(0.015);
    assertThat(feed(feed, histogram(2, 6, 6))).isEmpty();
    assertThat(feed(feed, histogram(2, 6, 8))).containsExactly(Math.nextUp(0.02),
        Math.nextUp(0.02));
  }

  @Test
  void anEngineWithoutAHistogramLeavesTheReplicasOwnCount() {
    EngineTtftFeed feed = new EngineTtftFeed();
    assertThat(feed(feed, TtftHistogram.NONE)).isEmpty();
    assertThat(feed.active()).isFalse();
  }

  @Test
  void countsThatStartAgainAreAllNew() {
    EngineTtftFeed feed = new EngineTtftFeed();
    feed(feed, histogram(5, 5, 5));
    assertThat(feed(feed, histogram(0, 1, 1))).containsExactly(0.015);
    List<Double> otherBounds = new ArrayList<>();
    feed.feed(new TtftHistogram(List.of(0.5, INF), List.of(2L, 2L), 0.4), otherBounds::add);
    assertThat(otherBounds).containsExactly(0.125, 0.375);
  }

  @Test
  void oneFeedObservesABoundedNumber() {
    EngineTtftFeed feed = new EngineTtftFeed();
    long many = EngineTtftFeed.MAX_PER_FEED + 10;
    assertThat(feed(feed, histogram(many, many, many))).hasSize(EngineTtftFeed.MAX_PER_FEED);
    assertThat(feed(feed, histogram(many, many + 1, many + 1))).hasSize(1);
  }
}
