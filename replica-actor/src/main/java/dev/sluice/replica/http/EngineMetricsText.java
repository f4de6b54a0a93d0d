package dev.sluice.replica.http;

import dev.sluice.replica.engine.EngineStats;
import dev.sluice.replica.engine.ScrapedStats;

/**
 * An engine's statistics in the Prometheus text format under vLLM's names (the ones
 * {@link ScrapedStats} reads, each labelled {@code model_name}), so that the simulated engine run
 * as a separate server looks to a replica as vLLM does.
 */
final class EngineMetricsText {

  private EngineMetricsText() {}

  static String render(String model, EngineStats stats) {
    String label = "{model_name=\"" + model.replace("\\", "\\\\").replace("\"", "\\\"")
        .replace("\n", "\\n") + "\"}";
    return gauge(ScrapedStats.VLLM_RUNNING, "Requests being generated.", label,
        stats.running())
        + gauge(ScrapedStats.VLLM_WAITING, "Requests waiting for a batch slot.", label,
            stats.waiting())
        + gauge(ScrapedStats.VLLM_KV_CACHE_USAGE, "KV-cache usage, 0 to 1.", label,
            stats.kvCacheUsage());
  }

  private static String gauge(String name, String help, String label, double value) {
    return "# HELP " + name + " " + help + "\n# TYPE " + name + " gauge\n" + name + label + " "
        + value + "\n";
  }
}
