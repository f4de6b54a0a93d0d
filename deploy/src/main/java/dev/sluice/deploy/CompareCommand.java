package dev.sluice.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.bench.BenchResult;
import dev.sluice.bench.CompareChart;
import dev.sluice.bench.ReportPrinter;
import dev.sluice.bench.SideBySide;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sluice bench compare}: the same workload against (a) a replica endpoint directly, the
 * physical limit of this machine, (b) the ingress on the direct path and (c) the ingress on the
 * relayed path (and, with {@code --haproxy}, (d) HAProxy with Sluice's Lua action), in
 * alternating rounds, with ratios and a chart.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
    description = "Direct streaming vs the physical limit vs the relayed path, side by side.")
final class CompareCommand implements Callable<Integer> {

  @Mixin
  BenchCommand.BenchOptions options;

  @Option(names = "--targets", split = ",", paramLabel = "REPLICA,DIRECT,RELAYED",
      description = "Use these three URLs instead of starting sluice local.")
  List<URI> targets;

  @Option(names = "--ttft-ms", defaultValue = "0", description = "Engine TTFT (default 0).")
  int ttftMs;

  @Option(names = "--itl-ms", defaultValue = "0",
      description = "Engine inter-token latency (default 0: the engine is never the bottleneck).")
  int itlMs;

  @Option(names = "--router-node", defaultValue = "ingress", paramLabel = "ingress|replica",
      description = "Node the router singleton runs on: ingress (default; the control role on "
          + "the ingress node, a local ask) or replica (every route crosses nodes).")
  String routerNode;

  @Option(names = "--haproxy",
      description = "Add a fourth target: HAProxy (the haproxy on the PATH) run by the ingress "
          + "node with Sluice's generated config, asking the router per request (issue 13).")
  boolean haproxy;

  @Option(names = "--haproxy-label", defaultValue = "haproxy+lua", paramLabel = "LABEL",
      description = "The fourth target's name in the chart (default haproxy+lua); e.g. "
          + "'haproxy (plain)' for a HAProxy without routing given with --targets.")
  String haproxyLabel;

  @Option(names = "--chart", defaultValue = "bench-compare.png", paramLabel = "FILE",
      description = "PNG chart of the distributions (default: bench-compare.png).")
  Path chart;

  @Override
  public Integer call() throws Exception {
    int expected = haproxy ? 4 : 3;
    if (targets != null && targets.size() != expected) {
      throw new IllegalArgumentException("--targets: " + targets + " (expected: " + expected
          + " URLs: replica, direct ingress, relayed ingress" + (haproxy ? ", HAProxy)" : ")"));
    }
    if (options.maxTokens == null) {
      options.maxTokens = "256";
    }
    int maxTokens = Integer.parseInt(options.maxTokens.split("-")[0].replace("exp:", ""));
    CompareTargets started = targets == null ? CompareTargets.start(ttftMs, itlMs, maxTokens,
        CompareTargets.RouterNode.parse(routerNode), haproxy)
        : null;
    try {
      List<URI> urls = new java.util.ArrayList<>(started == null ? targets
          : List.of(started.replica, started.direct, started.relayed));
      if (started != null) {
        started.haproxy.ifPresent(urls::add);
      }
      List<String> labels = new java.util.ArrayList<>(List.of("replica (limit)", "direct",
          "relayed"));
      if (haproxy) {
        labels.add(haproxyLabel);
      }
      Map<Integer, List<BenchResult>> byConcurrency = new LinkedHashMap<>();
      for (int concurrency : options.concurrency) {
        List<BenchResult> results = SideBySide.run(urls, options.load(urls.get(0), concurrency),
            options.rounds, options.progress());
        ReportPrinter.printComparison(System.out, results);
        printRatios(results);
        byConcurrency.put(concurrency, results);
      }
      CompareChart.write(chart, byConcurrency, labels);
      System.out.println("Chart written to " + chart);
      options.writeJson(json(byConcurrency));
      return 0;
    } finally {
      if (started != null) {
        started.close();
      }
    }
  }

  private static void printRatios(List<BenchResult> r) {
    System.out.printf(Locale.ROOT, "  direct/limit %.3f   relayed/limit %.3f   direct/relayed "
            + "%.3f   TTFT direct-limit p50 %+.3f ms p99 %+.3f ms%n%n",
        ratio(r.get(1), r.get(0)), ratio(r.get(2), r.get(0)), ratio(r.get(1), r.get(2)),
        r.get(1).ttftMs().p50() - r.get(0).ttftMs().p50(),
        r.get(1).ttftMs().p99() - r.get(0).ttftMs().p99());
    if (r.size() > 3) {
      System.out.printf(Locale.ROOT, "  haproxy/limit %.3f   direct/haproxy %.3f   TTFT "
              + "direct-haproxy p50 %+.3f ms p99 %+.3f ms%n%n",
          ratio(r.get(3), r.get(0)), ratio(r.get(1), r.get(3)),
          r.get(1).ttftMs().p50() - r.get(3).ttftMs().p50(),
          r.get(1).ttftMs().p99() - r.get(3).ttftMs().p99());
    }
  }

  private static double ratio(BenchResult a, BenchResult b) {
    return b.tokensPerSecond() == 0 ? 0 : a.tokensPerSecond() / b.tokensPerSecond();
  }

  private static ObjectNode ratios(List<BenchResult> r) {
    ObjectNode json = new ObjectMapper().createObjectNode();
    json.put("direct_over_limit_tokens_per_s", ratio(r.get(1), r.get(0)));
    json.put("relayed_over_limit_tokens_per_s", ratio(r.get(2), r.get(0)));
    json.put("direct_over_relayed_tokens_per_s", ratio(r.get(1), r.get(2)));
    json.put("direct_minus_limit_ttft_p50_ms", r.get(1).ttftMs().p50() - r.get(0).ttftMs().p50());
    json.put("direct_minus_limit_ttft_p99_ms", r.get(1).ttftMs().p99() - r.get(0).ttftMs().p99());
    if (r.size() > 3) {
      json.put("haproxy_over_limit_tokens_per_s", ratio(r.get(3), r.get(0)));
      json.put("direct_over_haproxy_tokens_per_s", ratio(r.get(1), r.get(3)));
      json.put("direct_minus_haproxy_ttft_p50_ms",
          r.get(1).ttftMs().p50() - r.get(3).ttftMs().p50());
      json.put("direct_minus_haproxy_ttft_p99_ms",
          r.get(1).ttftMs().p99() - r.get(3).ttftMs().p99());
    }
    return json;
  }

  /**
   * {@code ratios}: tokens/s ratios at the highest concurrency and TTFT differences at the lowest
   * (what the goals are stated for); {@code ratios_by_concurrency}: all of them; {@code results}:
   * every target's full result per concurrency (targets in order replica, direct, relayed and,
   * with --haproxy, haproxy).
   */
  private static ObjectNode json(Map<Integer, List<BenchResult>> byConcurrency) {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode json = mapper.createObjectNode();
    List<Integer> levels = List.copyOf(byConcurrency.keySet());
    List<BenchResult> highest = byConcurrency.get(levels.stream().max(Integer::compare).get());
    List<BenchResult> lowest = byConcurrency.get(levels.stream().min(Integer::compare).get());
    ObjectNode ratios = ratios(highest);
    ObjectNode low = ratios(lowest);
    ratios.put("direct_minus_limit_ttft_p50_ms", low.get("direct_minus_limit_ttft_p50_ms")
        .asDouble());
    ratios.put("direct_minus_limit_ttft_p99_ms", low.get("direct_minus_limit_ttft_p99_ms")
        .asDouble());
    if (low.has("direct_minus_haproxy_ttft_p50_ms")) {
      ratios.set("direct_minus_haproxy_ttft_p50_ms", low.get("direct_minus_haproxy_ttft_p50_ms"));
      ratios.set("direct_minus_haproxy_ttft_p99_ms", low.get("direct_minus_haproxy_ttft_p99_ms"));
    }
    json.set("ratios", ratios);
    ObjectNode each = json.putObject("ratios_by_concurrency");
    ObjectNode results = json.putObject("results");
    byConcurrency.forEach((concurrency, list) -> {
      each.set(String.valueOf(concurrency), ratios(list));
      ObjectNode level = results.putObject(String.valueOf(concurrency));
      level.set("replica", list.get(0).toJson());
      level.set("direct", list.get(1).toJson());
      level.set("relayed", list.get(2).toJson());
      if (list.size() > 3) {
        level.set("haproxy", list.get(3).toJson());
      }
    });
    return json;
  }
}
