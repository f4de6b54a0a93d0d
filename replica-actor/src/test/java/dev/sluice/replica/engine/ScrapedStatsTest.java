package dev.sluice.replica.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.metrics.PrometheusText;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScrapedStatsTest {

  private static final double INF = Double.POSITIVE_INFINITY;

  @Test
  void vllmsTtftHistogramIsSummedOverItsEngines() {
    PrometheusText.Scrape scrape = PrometheusText.parse("""
        # TYPE vllm:time_to_first_token_seconds histogram
        vllm:time_to_first_token_seconds_bucket{engine="0",le="0.01",model_name="m"} 1.0
        vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="m"} 3.0
        vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="m"} 4.0
        vllm:time_to_first_token_seconds_count{engine="0",model_name="m"} 4.0
        vllm:time_to_first_token_seconds_sum{engine="0",model_name="m"} 0.5
        vllm:time_to_first_token_seconds_bucket{engine="1",le="0.01",model_name="m"} 0.0
        vllm:time_to_first_token_seconds_bucket{engine="1",le="0.1",model_name="m"} 2.0
        vllm:time_to_first_token_seconds_bucket{engine="1",le="+Inf",model_name="m"} 2.0
        vllm:time_to_first_token_seconds_sum{engine="1",model_name="m"} 0.25
        """);
    TtftHistogram ttft = ScrapedStats.of(scrape).ttft();
    assertThat(ttft).isEqualTo(new TtftHistogram(List.of(0.01, 0.1, INF), List.of(1L, 5L, 6L),
        0.75));
    assertThat(ttft.count()).isEqualTo(6);
  }

  @Test
  void sglangsIsReadWhereThereIsNoVllmOne() {
    TtftHistogram ttft = ScrapedStats.ttft(PrometheusText.parse("""
        sglang:time_to_first_token_seconds_bucket{le="1.0"} 2
        sglang:time_to_first_token_seconds_bucket{le="+Inf"} 3
        """));
    assertThat(ttft.upperBounds()).containsExactly(1.0, INF);
    assertThat(ttft.cumulativeCounts()).containsExactly(2L, 3L);
    assertThat(ttft.sum()).isNaN();
  }

  @Test
  void aHistogramThatDoesNotAddUpIsNone() {
    for (String text : List.of(
        "",
        "vllm:time_to_first_token_seconds_bucket{le=\"0.1\"} 3\n"
            + "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} 2\n",
        "vllm:time_to_first_token_seconds_bucket{le=\"0.1\"} 3\n",
        "vllm:time_to_first_token_seconds_bucket{le=\"x\"} 3\n"
            + "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} 3\n",
        "vllm:time_to_first_token_seconds_bucket{} 3\n",
        "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} -1\n",
        "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} NaN\n")) {
      assertThat(ScrapedStats.ttft(PrometheusText.parse(text))).as(text)
          .isEqualTo(TtftHistogram.NONE);
    }
  }

  @Test
  void countsKeptByTheSimulatedEngineAreCumulative() {
    TtftCounts counts = new TtftCounts(List.of(0.01, 0.1, INF));
    counts.accept(0.001);
    counts.accept(0.01);
    counts.accept(0.05);
    counts.accept(7);
    TtftHistogram snapshot = counts.snapshot();
    assertThat(snapshot.cumulativeCounts()).containsExactly(2L, 3L, 4L);
    assertThat(snapshot.sum()).isCloseTo(7.061, org.assertj.core.data.Offset.offset(1e-9));
  }
}
