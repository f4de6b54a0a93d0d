package dev.sluice.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.bench.BenchResult;
import dev.sluice.bench.CompareChart;
import dev.sluice.bench.ReportPrinter;
import dev.sluice.bench.ServerCpu;
import dev.sluice.bench.SideBySide;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * relayed path (and, with {@code --haproxy}, (d) HAProxy with Sluice's Lua action; with {@code
 * --plain-haproxy}, (e) a plain HAProxy with no routing), in alternating rounds, with ratios and
 * a chart. When it started the targets itself it also gives each one's CPU per delivered token,
 * by serving process.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
    description = "Direct streaming vs the physical limit vs the relayed path (and HAProxy), "
        + "side by side; with CPU per delivered token by process when it starts the targets.")
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

  @Option(names = "--plain-haproxy",
      description = "Add a target: a plain HAProxy (the haproxy on the PATH) straight to the "
          + "replica, no Lua and no router: the floor a data plane's CPU is held against.")
  boolean plainHaproxy;

  @Option(names = "--no-relayed",
      description = "Leave the relayed path out (its Pekko Streams work on the ingress node "
          + "would be charged to the node's next target too: use it when measuring CPU).")
  boolean noRelayed;

  /** A target: its chart label, its key in the JSON and where it listens. */
  private record Target(String label, String key, URI url) {}

  @Override
  public Integer call() throws Exception {
    int expected = haproxy ? 4 : 3;
    if (targets != null && targets.size() != expected) {
      throw new IllegalArgumentException("--targets: " + targets + " (expected: " + expected
          + " URLs: replica, direct ingress, relayed ingress" + (haproxy ? ", HAProxy)" : ")"));
    }
    if (targets != null && (plainHaproxy || noRelayed)) {
      throw new IllegalArgumentException((plainHaproxy ? "--plain-haproxy" : "--no-relayed")
          + " shapes the targets this command starts: not with --targets");
    }
    if (options.maxTokens == null) {
      options.maxTokens = "256";
    }
    int maxTokens = Integer.parseInt(options.maxTokens.split("-")[0].replace("exp:", ""));
    CompareTargets started = targets == null ? CompareTargets.start(ttftMs, itlMs, maxTokens,
        CompareTargets.RouterNode.parse(routerNode), haproxy, plainHaproxy)
        : null;
    try {
      List<Target> all = started == null ? given() : started(started);
      List<URI> urls = all.stream().map(Target::url).toList();
      List<String> labels = all.stream().map(Target::label).toList();
      ServerCpu cpu = started == null ? ServerCpu.NONE : started.cpu();
      Map<Integer, List<BenchResult>> byConcurrency = new LinkedHashMap<>();
      for (int concurrency : options.concurrency) {
        List<BenchResult> results = SideBySide.run(urls, options.load(urls.get(0), concurrency),
            options.rounds, options.progress(), cpu);
        ReportPrinter.printComparison(System.out, results, labels);
        printRatios(named(all, results));
        ReportPrinter.printServerCpu(System.out, results, labels);
        byConcurrency.put(concurrency, results);
      }
      CompareChart.write(chart, byConcurrency, labels);
      System.out.println("Chart written to " + chart);
      options.writeJson(json(all, byConcurrency));
      return 0;
    } finally {
      if (started != null) {
        started.close();
      }
    }
  }

  private List<Target> given() {
    List<Target> all = new ArrayList<>(List.of(new Target("replica (limit)", "replica",
        targets.get(0)), new Target("direct", "direct", targets.get(1)),
        new Target("relayed", "relayed", targets.get(2))));
    if (haproxy) {
      all.add(new Target(haproxyLabel, "haproxy", targets.get(3)));
    }
    return all;
  }

  private List<Target> started(CompareTargets started) {
    List<Target> all = new ArrayList<>(List.of(new Target("replica (limit)", "replica",
        started.replica), new Target("direct", "direct", started.direct)));
    if (!noRelayed) {
      all.add(new Target("relayed", "relayed", started.relayed));
    }
    started.haproxy.ifPresent(url -> all.add(new Target(haproxyLabel, "haproxy", url)));
    started.plainHaproxy.ifPresent(url -> all.add(new Target("haproxy (plain)",
        "haproxy_plain", url)));
    return all;
  }

  /** Results by target key, in target order. */
  private static Map<String, BenchResult> named(List<Target> all, List<BenchResult> results) {
    Map<String, BenchResult> byKey = new LinkedHashMap<>();
    for (int t = 0; t < all.size(); t++) {
      byKey.put(all.get(t).key(), results.get(t));
    }
    return byKey;
  }

  private static void printRatios(Map<String, BenchResult> r) {
    ObjectNode ratios = ratios(r);
    System.out.printf(Locale.ROOT, "  direct/limit %.3f   TTFT direct-limit p50 %+.3f ms p99 "
            + "%+.3f ms%n", ratios.get("direct_over_limit_tokens_per_s").asDouble(),
        ratios.get("direct_minus_limit_ttft_p50_ms").asDouble(),
        ratios.get("direct_minus_limit_ttft_p99_ms").asDouble());
    if (ratios.has("relayed_over_limit_tokens_per_s")) {
      System.out.printf(Locale.ROOT, "  relayed/limit %.3f   direct/relayed %.3f%n",
          ratios.get("relayed_over_limit_tokens_per_s").asDouble(),
          ratios.get("direct_over_relayed_tokens_per_s").asDouble());
    }
    for (String other : List.of("haproxy", "plain_haproxy")) {
      if (ratios.has("direct_over_" + other + "_tokens_per_s")) {
        System.out.printf(Locale.ROOT, "  direct/%s %.3f   TTFT direct-%s p50 %+.3f ms p99 "
                + "%+.3f ms%s%n", other, ratios.get("direct_over_" + other + "_tokens_per_s")
                .asDouble(), other, ratios.get("direct_minus_" + other + "_ttft_p50_ms")
                .asDouble(), ratios.get("direct_minus_" + other + "_ttft_p99_ms").asDouble(),
            ratios.has("direct_over_" + other + "_cpu_per_token") ? String.format(Locale.ROOT,
                "   CPU per token direct/%s %.3f", other,
                ratios.get("direct_over_" + other + "_cpu_per_token").asDouble()) : "");
      }
    }
    System.out.println();
  }

  private static double ratio(BenchResult a, BenchResult b) {
    return b.tokensPerSecond() == 0 ? 0 : a.tokensPerSecond() / b.tokensPerSecond();
  }

  /**
   * Ratios against the direct path. The CPU ratios (when the run measured its processes) set the
   * direct path's node (the router with it) against the other data plane's own processes:
   * HAProxy+Lua's HAProxy with the node that answers its route requests, and the plain HAProxy's
   * process alone.
   */
  private static ObjectNode ratios(Map<String, BenchResult> r) {
    ObjectNode json = new ObjectMapper().createObjectNode();
    BenchResult limit = r.get("replica");
    BenchResult direct = r.get("direct");
    json.put("direct_over_limit_tokens_per_s", ratio(direct, limit));
    if (r.containsKey("relayed")) {
      json.put("relayed_over_limit_tokens_per_s", ratio(r.get("relayed"), limit));
      json.put("direct_over_relayed_tokens_per_s", ratio(direct, r.get("relayed")));
    }
    json.put("direct_minus_limit_ttft_p50_ms", direct.ttftMs().p50() - limit.ttftMs().p50());
    json.put("direct_minus_limit_ttft_p99_ms", direct.ttftMs().p99() - limit.ttftMs().p99());
    Map<String, Double> directCpu = direct.serverCpuMicrosPerToken();
    if (r.containsKey("haproxy")) {
      BenchResult lua = r.get("haproxy");
      json.put("haproxy_over_limit_tokens_per_s", ratio(lua, limit));
      versus(json, "haproxy", direct, lua, directCpu.isEmpty() ? 0
          : lua.serverCpuMicrosPerToken().getOrDefault(CompareTargets.LUA_HAPROXY, 0.0)
              + lua.serverCpuMicrosPerToken().getOrDefault(CompareTargets.INGRESS_NODE, 0.0));
    }
    if (r.containsKey("haproxy_plain")) {
      BenchResult plain = r.get("haproxy_plain");
      versus(json, "plain_haproxy", direct, plain, directCpu.isEmpty() ? 0
          : plain.serverCpuMicrosPerToken().getOrDefault(CompareTargets.PLAIN_HAPROXY, 0.0));
    }
    return json;
  }

  private static void versus(ObjectNode json, String name, BenchResult direct, BenchResult other,
      double otherCpuPerToken) {
    json.put("direct_over_" + name + "_tokens_per_s", ratio(direct, other));
    json.put("direct_minus_" + name + "_ttft_p50_ms", direct.ttftMs().p50() - other.ttftMs().p50());
    json.put("direct_minus_" + name + "_ttft_p99_ms", direct.ttftMs().p99() - other.ttftMs().p99());
    if (otherCpuPerToken > 0) {
      json.put("direct_over_" + name + "_cpu_per_token",
          direct.serverCpuMicrosPerToken().getOrDefault(CompareTargets.INGRESS_NODE, 0.0)
              / otherCpuPerToken);
    }
  }

  /**
   * {@code ratios}: tokens/s ratios at the highest concurrency and TTFT differences at the lowest
   * (what the goals are stated for); {@code ratios_by_concurrency}: all of them; {@code results}:
   * every target's full result per concurrency, by target key (replica, direct and, when run,
   * relayed, haproxy and haproxy_plain).
   */
  private static ObjectNode json(List<Target> all, Map<Integer, List<BenchResult>> byConcurrency) {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode json = mapper.createObjectNode();
    List<Integer> levels = List.copyOf(byConcurrency.keySet());
    int highest = levels.stream().max(Integer::compare).get();
    int lowest = levels.stream().min(Integer::compare).get();
    ObjectNode ratios = ratios(named(all, byConcurrency.get(highest)));
    ObjectNode low = ratios(named(all, byConcurrency.get(lowest)));
    low.fieldNames().forEachRemaining(field -> {
      if (field.contains("_ttft_")) {
        ratios.set(field, low.get(field));
      }
    });
    json.set("ratios", ratios);
    ObjectNode each = json.putObject("ratios_by_concurrency");
    ObjectNode results = json.putObject("results");
    byConcurrency.forEach((concurrency, list) -> {
      each.set(String.valueOf(concurrency), ratios(named(all, list)));
      ObjectNode level = results.putObject(String.valueOf(concurrency));
      named(all, list).forEach((key, result) -> level.set(key, result.toJson()));
    });
    return json;
  }
}
