package dev.sluice.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.bench.BenchResult;
import dev.sluice.bench.Distribution;
import dev.sluice.bench.LoadOptions;
import dev.sluice.bench.LoadRun;
import dev.sluice.bench.Progress;
import dev.sluice.bench.ReportPrinter;
import dev.sluice.bench.SideBySide;
import dev.sluice.bench.Workload;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sluice bench}: an OpenAI-API load generator. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    subcommands = {CompareCommand.class},
    description = "Load an OpenAI-compatible endpoint (streaming or not) and report TTFT, "
        + "inter-token latency, end-to-end latency, tokens/s, outcomes by status and reason, "
        + "per-replica spread and session affinity. Several --url run side by side in "
        + "alternating rounds, the first as the baseline. Loopback or your own test hosts only.")
final class BenchCommand implements Callable<Integer> {

  @Option(names = "--url", paramLabel = "URL",
      description = "Base URL, e.g. http://127.0.0.1:8000 (repeat to compare).")
  List<URI> urls;

  @Mixin
  BenchOptions options;

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (urls == null || urls.isEmpty()) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(),
          "--url is required (or use: sluice bench compare)");
    }
    ObjectNode json = new ObjectMapper().createObjectNode();
    ArrayNode runs = json.putArray("results");
    Progress progress = options.progress();
    for (int concurrency : options.concurrency) {
      LoadOptions load = options.load(urls.get(0), concurrency);
      List<BenchResult> results = urls.size() == 1
          ? List.of(LoadRun.run(load, progress))
          : SideBySide.run(urls, load, options.rounds, progress);
      results.forEach(r -> {
        ReportPrinter.print(System.out, r);
        runs.add(r.toJson());
      });
      if (results.size() > 1) {
        ReportPrinter.printComparison(System.out, results);
      }
      System.out.println();
    }
    options.writeJson(json);
    return 0;
  }

  /** Options shared by {@code bench} and {@code bench compare}. */
  static final class BenchOptions {
    @Option(names = "--workload", defaultValue = "default",
        description = "Preset: default, short-prompt-long-decode, long-prompt-short-decode, "
            + "mixed, burst, multi-turn, shared-prefix.")
    String workload;

    @Option(names = "--concurrency", split = ",", defaultValue = "16",
        description = "Connections; a list runs each level (default: 16).")
    List<Integer> concurrency;

    @Option(names = "--requests", defaultValue = "1000",
        description = "Requests per run (upper bound with --duration; default: 1000).")
    long requests;

    @Option(names = "--duration", description = "Stop issuing requests after this long (10s).")
    String duration;

    @Option(names = "--rate", description = "Open loop: Poisson arrivals per second.")
    Double rate;

    @Option(names = "--prompt-tokens", description = "N, LOW-HIGH or exp:MEAN.")
    String promptTokens;

    @Option(names = "--max-tokens", description = "Output tokens: N, LOW-HIGH or exp:MEAN.")
    String maxTokens;

    @Option(names = "--no-stream", description = "Non-streaming requests.")
    boolean noStream;

    @Option(names = "--model", description = "Model id to put in requests (default: none).")
    String model;

    @Option(names = "--sessions", defaultValue = "50", description = "multi-turn: sessions.")
    int sessions;

    @Option(names = "--turns", defaultValue = "10", description = "multi-turn: turns each.")
    int turns;

    @Option(names = "--groups", defaultValue = "8",
        description = "shared-prefix: groups sharing a system prompt.")
    int groups;

    @Option(names = "--prefix-chars", defaultValue = "4096",
        description = "shared-prefix: system prompt length in characters.")
    int prefixChars;

    @Option(names = "--session-header", defaultValue = "x-session-id",
        description = "Header carrying the session id.")
    String sessionHeader;

    @Option(names = "--warmup", defaultValue = "50", description = "Unmeasured requests first.")
    int warmup;

    @Option(names = "--rounds", defaultValue = "4",
        description = "Alternating rounds when comparing several targets.")
    int rounds;

    @Option(names = "--seed", defaultValue = "1", description = "Workload seed.")
    long seed;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results here.")
    Path json;

    LoadOptions load(URI url, int concurrency) {
      Workload work = Workload.of(workload,
          Optional.ofNullable(promptTokens).map(t -> Distribution.parse("--prompt-tokens", t)),
          Optional.ofNullable(maxTokens).map(t -> Distribution.parse("--max-tokens", t)),
          !noStream, Optional.ofNullable(model), sessions, turns, groups, prefixChars, seed);
      long count = work.preset().equals("burst") ? Math.max(requests, concurrency) : requests;
      int connections = work.preset().equals("burst") ? (int) count : concurrency;
      return new LoadOptions(url, work, connections, count,
          Optional.ofNullable(duration).map(BenchOptions::parseDuration),
          Optional.ofNullable(rate), warmup, sessionHeader);
    }

    Progress progress() {
      return Progress.onTerminal();
    }

    void writeJson(ObjectNode node) throws java.io.IOException {
      if (json != null) {
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(json.toFile(), node);
        System.out.println("JSON written to " + json);
      }
    }

    static Duration parseDuration(String text) {
      try {
        return com.typesafe.config.ConfigFactory.parseString("d = " + text).getDuration("d");
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("--duration: '" + text + "' (expected e.g. 10s, 500ms)");
      }
    }
  }
}
