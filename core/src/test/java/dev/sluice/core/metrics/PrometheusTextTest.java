package dev.sluice.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.metrics.PrometheusText.Sample;
import dev.sluice.core.metrics.PrometheusText.Scrape;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusTextTest {

  /** Shaped like vLLM's /metrics (v0 names and the newer v1 kv_cache_usage_perc). */
  private static final String VLLM = """
      # HELP vllm:num_requests_running Number of requests in model execution batches.
      # TYPE vllm:num_requests_running gauge
      vllm:num_requests_running{engine="0",model_name="m"} 3.0
      # HELP vllm:num_requests_waiting Number of requests waiting to be processed.
      # TYPE vllm:num_requests_waiting gauge
      vllm:num_requests_waiting{engine="0",model_name="m"} 1.0
      # HELP vllm:gpu_cache_usage_perc GPU KV-cache usage. 1 means 100 percent usage.
      # TYPE vllm:gpu_cache_usage_perc gauge
      vllm:gpu_cache_usage_perc{model_name="m"} 0.25
      vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.5
      # TYPE vllm:generation_tokens_total counter
      vllm:generation_tokens_total{model_name="m"} 1234.0
      # TYPE vllm:e2e_request_latency_seconds histogram
      vllm:e2e_request_latency_seconds_bucket{le="0.3",model_name="m"} 2.0
      vllm:e2e_request_latency_seconds_bucket{le="+Inf",model_name="m"} 7.0
      vllm:e2e_request_latency_seconds_count{model_name="m"} 7.0
      python_gc_objects_collected_total{generation="0"} 1.2e+04
      """;

  @Test
  void readsVllmGauges() {
    Scrape scrape = PrometheusText.parse(VLLM);

    assertThat(scrape.malformedLines()).isZero();
    assertThat(scrape.sum("vllm:num_requests_running")).hasValue(3.0);
    assertThat(scrape.sum("vllm:num_requests_waiting")).hasValue(1.0);
    assertThat(scrape.max("vllm:gpu_cache_usage_perc")).hasValue(0.25);
    assertThat(scrape.max("vllm:kv_cache_usage_perc")).hasValue(0.5);
    assertThat(scrape.sum("python_gc_objects_collected_total")).hasValue(12000.0);
    assertThat(scrape.samples("vllm:num_requests_running")).containsExactly(
        new Sample("vllm:num_requests_running", Map.of("engine", "0", "model_name", "m"), 3.0));
  }

  @Test
  void sumAddsEveryLabelSetAndIsEmptyForAnAbsentMetric() {
    Scrape scrape = PrometheusText.parse("""
        vllm:num_requests_running{engine="0",model_name="m"} 3
        vllm:num_requests_running{engine="1",model_name="m"} 4
        vllm:kv_cache_usage_perc{engine="0"} 0.2
        vllm:kv_cache_usage_perc{engine="1"} 0.7
        """);

    assertThat(scrape.sum("vllm:num_requests_running")).hasValue(7.0);
    assertThat(scrape.max("vllm:kv_cache_usage_perc")).hasValue(0.7);
    assertThat(scrape.sum("vllm:num_requests_waiting")).isEmpty();
    assertThat(scrape.max("vllm:num_requests_waiting")).isEmpty();
  }

  @Test
  void unescapesLabelValues() {
    Scrape scrape = PrometheusText.parse(
        "m{path=\"C:\\\\dir\",quote=\"say \\\"hi\\\"\",text=\"a\\nb\",brace=\"}{,=\"} 1\n");

    assertThat(scrape.malformedLines()).isZero();
    assertThat(scrape.samples().get(0).labels()).containsExactlyInAnyOrderEntriesOf(Map.of(
        "path", "C:\\dir", "quote", "say \"hi\"", "text", "a\nb", "brace", "}{,="));
  }

  @Test
  void readsSpecialValuesTimestampsAndBlanks() {
    Scrape scrape = PrometheusText.parse("""
        a NaN
        b +Inf
        c -Inf 1712345678901
          d{ x = "1" , } \t 2.5e-1   -5\r

        e{} 7
        """);

    assertThat(scrape.malformedLines()).isZero();
    assertThat(scrape.samples()).extracting(Sample::name).containsExactly("a", "b", "c", "d", "e");
    assertThat(scrape.samples().get(0).value()).isNaN();
    assertThat(scrape.samples().get(1).value()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(scrape.samples().get(2).value()).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(scrape.samples().get(3)).isEqualTo(new Sample("d", Map.of("x", "1"), 0.25));
    assertThat(scrape.samples().get(4).labels()).isEmpty();
  }

  @Test
  void skipsAndCountsMalformedLinesWithoutLosingTheOthers() {
    Scrape scrape = PrometheusText.parse("""
        good 1
        no_value
        1starts_with_digit 1
        bad_value abc
        java_suffix 1.0d
        hex 0x10
        unclosed{a="1" 2
        unquoted{a=1} 2
        bad_escape{a="\\t"} 2
        duplicate{a="1",a="2"} 2
        two_values 1 2 3
        bad_timestamp 1 soon
        {a="1"} 2
        also_good{model_name="m"} 2
        """);

    assertThat(scrape.malformedLines()).isEqualTo(12);
    assertThat(scrape.samples()).extracting(Sample::name).containsExactly("good", "also_good");
  }

  @Test
  void emptyTextHasNoSamples() {
    assertThat(PrometheusText.parse("")).isEqualTo(new Scrape(java.util.List.of(), 0));
    assertThat(PrometheusText.parse("# only a comment\n\n").samples()).isEmpty();
  }
}
