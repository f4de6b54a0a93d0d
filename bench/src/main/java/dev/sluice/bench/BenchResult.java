package dev.sluice.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * The summary of one run against one target. Latencies are in milliseconds.
 *
 * @param sessionAffinity share of sessions whose turns all landed on one replica, or -1 when the
 *     workload had no sessions
 * @param clientCpuSeconds CPU the load generator's own threads used
 * @param serverCpuSeconds CPU each group of serving processes used during this target's measured
 *     rounds (empty unless the run knew those processes: {@link ServerCpu})
 */
public record BenchResult(
    String target,
    String workload,
    int concurrency,
    double rate,
    long requests,
    double seconds,
    long outputTokens,
    Percentiles ttftMs,
    Percentiles itlMs,
    Percentiles e2eMs,
    Map<String, Long> outcomes,
    Map<String, Long> replicas,
    double sessionAffinity,
    double clientCpuSeconds,
    Map<String, Double> serverCpuSeconds) {

  /** The sum over every group in {@link #serverCpuMicrosPerToken}. */
  public static final String ALL = "all";

  /** p50/p90/p99/max/mean of a latency distribution, in milliseconds. */
  public record Percentiles(double p50, double p90, double p99, double max, double mean,
      long count) {

    static Percentiles of(Histogram micros) {
      return new Percentiles(micros.getValueAtPercentile(50) / 1000.0,
          micros.getValueAtPercentile(90) / 1000.0, micros.getValueAtPercentile(99) / 1000.0,
          micros.getMaxValue() / 1000.0, micros.getMean() / 1000.0, micros.getTotalCount());
    }

    ObjectNode toJson() {
      ObjectNode json = JsonNodeFactory.instance.objectNode();
      json.put("p50", p50).put("p90", p90).put("p99", p99).put("max", max).put("mean", mean)
          .put("count", count);
      return json;
    }
  }

  static BenchResult of(LoadOptions options, Measurements measured, double seconds,
      double cpuSeconds) {
    return of(options, measured, seconds, cpuSeconds, Map.of());
  }

  static BenchResult of(LoadOptions options, Measurements measured, double seconds,
      double cpuSeconds, Map<String, Double> serverCpuSeconds) {
    Map<String, Long> outcomes = new TreeMap<>();
    measured.outcomes.forEach((k, v) -> outcomes.put(k, v.sum()));
    Map<String, Long> replicas = new TreeMap<>();
    measured.replicas.forEach((k, v) -> replicas.put(k, v.sum()));
    double affinity = -1;
    if (!measured.sessionReplicas.isEmpty()) {
      long sticky = measured.sessionReplicas.values().stream().filter(s -> s.size() == 1).count();
      affinity = (double) sticky / measured.sessionReplicas.size();
    }
    return new BenchResult(options.target().toString(), options.workload().preset(),
        options.concurrency(), options.rate().orElse(0.0), measured.requests.sum(), seconds,
        measured.outputTokens.sum(), Percentiles.of(measured.ttft.getIntervalHistogram()),
        Percentiles.of(measured.itl.getIntervalHistogram()),
        Percentiles.of(measured.e2e.getIntervalHistogram()), outcomes, replicas, affinity,
        cpuSeconds, Collections.unmodifiableMap(new LinkedHashMap<>(serverCpuSeconds)));
  }

  public long ok() {
    return outcomes.getOrDefault("200", 0L);
  }

  public double requestsPerSecond() {
    return ok() / seconds;
  }

  public double tokensPerSecond() {
    return outputTokens / seconds;
  }

  /**
   * Microseconds of CPU per delivered output token, by group of serving processes, in the order
   * the groups were measured, then {@code all} (their sum); empty when nothing was measured or
   * no token was delivered.
   */
  public Map<String, Double> serverCpuMicrosPerToken() {
    Map<String, Double> perToken = new LinkedHashMap<>();
    if (outputTokens == 0 || serverCpuSeconds.isEmpty()) {
      return perToken;
    }
    serverCpuSeconds.forEach((group, cpu) -> perToken.put(group, cpu * 1e6 / outputTokens));
    perToken.put(ALL, serverCpuSeconds.values().stream().mapToDouble(Double::doubleValue).sum()
        * 1e6 / outputTokens);
    return perToken;
  }

  /** The documented JSON shape (see docs/BENCHMARKS.md, "sluice bench JSON"). */
  public ObjectNode toJson() {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    json.put("target", target).put("workload", workload).put("concurrency", concurrency)
        .put("rate", rate).put("requests", requests).put("ok", ok())
        .put("duration_s", seconds).put("requests_per_s", requestsPerSecond())
        .put("output_tokens", outputTokens).put("output_tokens_per_s", tokensPerSecond());
    json.set("ttft_ms", ttftMs.toJson());
    json.set("itl_ms", itlMs.toJson());
    json.set("e2e_ms", e2eMs.toJson());
    ObjectNode byOutcome = json.putObject("outcomes");
    outcomes.forEach(byOutcome::put);
    ObjectNode byReplica = json.putObject("replicas");
    replicas.forEach(byReplica::put);
    if (sessionAffinity >= 0) {
      json.put("session_affinity", sessionAffinity);
    } else {
      json.putNull("session_affinity");
    }
    json.put("client_cpu_s", clientCpuSeconds);
    ObjectNode server = json.putObject("server_cpu_s");
    serverCpuSeconds.forEach(server::put);
    ObjectNode perToken = json.putObject("server_cpu_us_per_token");
    serverCpuMicrosPerToken().forEach(perToken::put);
    return json;
  }

  static Set<String> jsonFields() {
    return Set.of("target", "workload", "concurrency", "rate", "requests", "ok", "duration_s",
        "requests_per_s", "output_tokens", "output_tokens_per_s", "ttft_ms", "itl_ms", "e2e_ms",
        "outcomes", "replicas", "session_affinity", "client_cpu_s", "server_cpu_s",
        "server_cpu_us_per_token");
  }
}
