package dev.sluice.replica.http;

import dev.sluice.replica.engine.EngineStats;
import dev.sluice.replica.engine.ScrapedStats;
import dev.sluice.replica.engine.TtftHistogram;

/**
 * An engine's statistics in the Prometheus text format under vLLM's names (the ones
 * {@link ScrapedStats} reads, each labelled {@code model_name}), so that the simulated engine run
 * as a separate server looks to a replica as vLLM does.
 */
final class EngineMetricsText {

  private static final String GENERATED = "vllm:generation_tokens_total";

  private EngineMetricsText() {}

  static String render(String model, EngineStats stats) {
    String label = "{model_name=" + quoted(model) + "}";
    return gauge(ScrapedStats.VLLM_RUNNING, "Requests being generated.", label,
        stats.running())
        + gauge(ScrapedStats.VLLM_WAITING, "Requests waiting for a batch slot.", label,
            stats.waiting())
        + gauge(ScrapedStats.VLLM_KV_CACHE_USAGE, "KV-cache usage, 0 to 1.", label,
            stats.kvCacheUsage())
        + "# HELP " + GENERATED + " Tokens generated.\n# TYPE " + GENERATED + " counter\n"
        + GENERATED + label + " " + stats.generatedTokens() + "\n"
        + histogram(ScrapedStats.VLLM_TTFT, "Time to first token in seconds.", model,
            stats.ttft());
  }

  private static String histogram(String name, String help, String model,
      TtftHistogram histogram) {
    if (histogram.isEmpty()) {
      return "";
    }
    String modelName = "model_name=" + quoted(model);
    StringBuilder text = new StringBuilder("# HELP " + name + " " + help + "\n# TYPE " + name
        + " histogram\n");
    for (int i = 0; i < histogram.upperBounds().size(); i++) {
      double bound = histogram.upperBounds().get(i);
      text.append(name).append("_bucket{le=\"")
          .append(Double.isInfinite(bound) ? "+Inf" : String.valueOf(bound))
          .append("\",").append(modelName).append("} ")
          .append(histogram.cumulativeCounts().get(i)).append('\n');
    }
    String label = "{" + modelName + "} ";
    return text.append(name).append("_count").append(label).append(histogram.count())
        .append('\n').append(name).append("_sum").append(label).append(histogram.sum())
        .append('\n').toString();
  }

  private static String quoted(String value) {
    return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
  }

  private static String gauge(String name, String help, String label, double value) {
    return "# HELP " + name + " " + help + "\n# TYPE " + name + " gauge\n" + name + label + " "
        + value + "\n";
  }
}
