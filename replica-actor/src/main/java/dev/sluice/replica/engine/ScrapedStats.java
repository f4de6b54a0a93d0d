package dev.sluice.replica.engine;

import dev.sluice.core.metrics.PrometheusText;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * {@link EngineStats} from an engine's Prometheus metrics: vLLM's names (v1 and v0), else
 * SGLang's, else llama.cpp's; what an engine does not export counts as 0 (its TTFT histogram:
 * none).
 */
public final class ScrapedStats {

  /** vLLM's gauge of the requests it is generating for (what the simulated engine serves too). */
  public static final String VLLM_RUNNING = "vllm:num_requests_running";
  /** vLLM's gauge of the requests waiting for its batch. */
  public static final String VLLM_WAITING = "vllm:num_requests_waiting";
  /** vLLM's (v1) KV-cache usage, 0 to 1. */
  public static final String VLLM_KV_CACHE_USAGE = "vllm:kv_cache_usage_perc";

  private static final List<String> RUNNING = List.of(VLLM_RUNNING,
      "sglang:num_running_reqs", "llamacpp:requests_processing");
  private static final List<String> WAITING = List.of(VLLM_WAITING,
      "sglang:num_queue_reqs", "llamacpp:requests_deferred");
  /** Ratios: the largest over label sets (several engines in one server), not their sum. */
  private static final List<String> KV_CACHE_USAGE = List.of(VLLM_KV_CACHE_USAGE,
      "vllm:gpu_cache_usage_perc", "sglang:token_usage", "llamacpp:kv_cache_usage_ratio");
  private static final List<String> GENERATED = List.of("vllm:generation_tokens_total",
      "sglang:generation_tokens_total", "llamacpp:tokens_predicted_total");
  /** Histograms of the time to first token, in seconds. */
  public static final String VLLM_TTFT = "vllm:time_to_first_token_seconds";
  private static final List<String> TTFT = List.of(VLLM_TTFT,
      "sglang:time_to_first_token_seconds");
  private static final List<String> PREFIX_HIT_RATE = List.of("vllm:gpu_prefix_cache_hit_rate",
      "sglang:cache_hit_rate");

  static final EngineStats NONE = new EngineStats(0, 0, 0, 0, 0, 0);

  private ScrapedStats() {}

  /** The statistics {@code scrape} holds. */
  public static EngineStats of(PrometheusText.Scrape scrape) {
    return new EngineStats(
        (int) first(scrape, RUNNING, false),
        (int) first(scrape, WAITING, false),
        (long) first(scrape, GENERATED, false),
        0,
        prefixHitRatio(scrape),
        clamp(first(scrape, KV_CACHE_USAGE, true)),
        ttft(scrape));
  }

  /**
   * The first TTFT histogram the engine exports, its buckets summed over label sets (several
   * engines in one server); {@link TtftHistogram#NONE} if there is none or it does not add up.
   */
  static TtftHistogram ttft(PrometheusText.Scrape scrape) {
    for (String name : TTFT) {
      Map<Double, Long> byBound = new TreeMap<>();
      for (PrometheusText.Sample sample : scrape.samples(name + "_bucket")) {
        String le = sample.labels().get("le");
        if (le == null || !Double.isFinite(sample.value()) || sample.value() < 0) {
          return TtftHistogram.NONE;
        }
        double bound;
        try {
          bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
        } catch (NumberFormatException notABound) {
          return TtftHistogram.NONE;
        }
        byBound.merge(bound, (long) sample.value(), Long::sum);
      }
      if (!byBound.isEmpty()) {
        try {
          return new TtftHistogram(List.copyOf(byBound.keySet()),
              List.copyOf(byBound.values()), scrape.sum(name + "_sum").orElse(Double.NaN));
        } catch (IllegalArgumentException notCumulative) {
          return TtftHistogram.NONE;
        }
      }
    }
    return TtftHistogram.NONE;
  }

  /** vLLM v1 counts hits and queries (in tokens); v0 and SGLang export a ratio. */
  private static double prefixHitRatio(PrometheusText.Scrape scrape) {
    OptionalDouble hits = scrape.sum("vllm:prefix_cache_hits_total");
    OptionalDouble queries = scrape.sum("vllm:prefix_cache_queries_total");
    if (hits.isPresent() && queries.isPresent() && queries.getAsDouble() > 0) {
      return clamp(hits.getAsDouble() / queries.getAsDouble());
    }
    return clamp(first(scrape, PREFIX_HIT_RATE, true));
  }

  /** The first of {@code names} the engine exports: its sum (or max for ratios), else 0. */
  private static double first(PrometheusText.Scrape scrape, List<String> names, boolean ratio) {
    for (String name : names) {
      OptionalDouble value = ratio ? scrape.max(name) : scrape.sum(name);
      if (value.isPresent() && Double.isFinite(value.getAsDouble())) {
        return Math.max(0, value.getAsDouble());
      }
    }
    return 0;
  }

  private static double clamp(double ratio) {
    return Math.min(1, Math.max(0, ratio));
  }
}
