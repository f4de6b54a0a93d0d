package dev.sluice.replica.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.metrics.PrometheusText;
import dev.sluice.replica.engine.EngineStats;
import dev.sluice.replica.engine.ScrapedStats;
import dev.sluice.replica.engine.TtftCounts;
import dev.sluice.replica.engine.TtftHistogram;
import org.junit.jupiter.api.Test;

/** The simulated engine's metrics read back as a replica reads vLLM's. */
class EngineMetricsTextTest {

  @Test
  void whatTheSimulatedEngineExportsIsWhatAReplicaReads() {
    TtftCounts counts = new TtftCounts(TtftHistogram.ENGINE_SIM_BOUNDS);
    counts.accept(0.003);
    counts.accept(0.2);
    counts.accept(3000);
    EngineStats stats = new EngineStats(2, 1, 42, 0, 0, 0.5).withTtft(counts.snapshot());
    String text = EngineMetricsText.render("a \"model\"", stats);

    PrometheusText.Scrape scrape = PrometheusText.parse(text);
    assertThat(scrape.malformedLines()).isZero();
    assertThat(ScrapedStats.of(scrape)).isEqualTo(stats);
    assertThat(text).contains(
        "vllm:time_to_first_token_seconds_count{model_name=\"a \\\"model\\\"\"} 3\n");
  }

  @Test
  void noHistogramIsWrittenForAnEngineWithout() {
    String text = EngineMetricsText.render("m", new EngineStats(0, 0, 0, 0, 0, 0));
    assertThat(text).doesNotContain("time_to_first_token").contains(
        "vllm:generation_tokens_total{model_name=\"m\"} 0\n");
  }
}
