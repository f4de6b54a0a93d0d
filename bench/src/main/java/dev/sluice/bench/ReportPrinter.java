package dev.sluice.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The human table on stdout. */
public final class ReportPrinter {

  private ReportPrinter() {}

  public static void print(PrintStream out, BenchResult r) {
    out.printf(Locale.ROOT, "%s  workload %s  concurrency %d%s  %d requests in %.2f s%n",
        r.target(), r.workload(), r.concurrency(),
        r.rate() > 0 ? String.format(Locale.ROOT, "  rate %.1f/s", r.rate()) : "",
        r.requests(), r.seconds());
    out.printf(Locale.ROOT, "  requests/s %.1f   output tokens/s %,.0f   generator CPU %.2f s "
        + "(%.0f%% of one core)%n", r.requestsPerSecond(), r.tokensPerSecond(),
        r.clientCpuSeconds(), 100 * r.clientCpuSeconds() / r.seconds());
    out.printf(Locale.ROOT, "  %-8s %9s %9s %9s %9s%n", "ms", "p50", "p90", "p99", "max");
    row(out, "TTFT", r.ttftMs());
    row(out, "ITL", r.itlMs());
    row(out, "E2E", r.e2eMs());
    out.println("  outcomes: " + r.outcomes());
    if (!r.replicas().isEmpty()) {
      StringBuilder line = new StringBuilder("  replicas:");
      long total = r.replicas().values().stream().mapToLong(Long::longValue).sum();
      for (Map.Entry<String, Long> e : r.replicas().entrySet()) {
        line.append(String.format(Locale.ROOT, " %s=%d (%.1f%%)", e.getKey(), e.getValue(),
            100.0 * e.getValue() / total));
      }
      out.println(line);
    }
    if (r.sessionAffinity() >= 0) {
      out.printf(Locale.ROOT, "  session affinity: %.1f%%%n", 100 * r.sessionAffinity());
    }
  }

  private static void row(PrintStream out, String name, BenchResult.Percentiles p) {
    out.printf(Locale.ROOT, "  %-8s %9.3f %9.3f %9.3f %9.3f%n", name, p.p50(), p.p90(), p.p99(),
        p.max());
  }

  /** Side by side: the first result is the baseline of every ratio. */
  public static void printComparison(PrintStream out, List<BenchResult> results) {
    printComparison(out, results, results.stream().map(BenchResult::target).toList());
  }

  /** The same, each target named by its label (e.g. "direct") instead of its URL. */
  public static void printComparison(PrintStream out, List<BenchResult> results,
      List<String> labels) {
    BenchResult base = results.get(0);
    out.printf(Locale.ROOT, "%-28s %5s %11s %6s %9s %9s %9s %9s %s%n", "target", "conc",
        "tokens/s", "ratio", "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "outcomes");
    for (int t = 0; t < results.size(); t++) {
      BenchResult r = results.get(t);
      out.printf(Locale.ROOT, "%-28s %5d %11.0f %6.3f %9.3f %9.3f %9.3f %9.3f %s%n",
          labels.get(t), r.concurrency(), r.tokensPerSecond(),
          r.tokensPerSecond() / base.tokensPerSecond(), r.ttftMs().p50(), r.ttftMs().p99(),
          r.itlMs().p50(), r.itlMs().p99(), r.outcomes());
    }
  }

  /**
   * Each target's CPU per delivered token by group of serving processes, and their sum: nothing
   * when nothing was measured.
   */
  public static void printServerCpu(PrintStream out, List<BenchResult> results,
      List<String> labels) {
    if (results.get(0).serverCpuMicrosPerToken().isEmpty()) {
      return;
    }
    List<String> groups = List.copyOf(results.get(0).serverCpuMicrosPerToken().keySet());
    out.println("  server CPU per delivered token, us (each process's CPU in the target's "
        + "measured rounds / its tokens):");
    StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "    %-18s", "target"));
    groups.forEach(g -> header.append(String.format(Locale.ROOT, " %14s", g)));
    out.println(header);
    for (int t = 0; t < results.size(); t++) {
      Map<String, Double> perToken = results.get(t).serverCpuMicrosPerToken();
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "    %-18s",
          labels.get(t)));
      groups.forEach(g -> line.append(String.format(Locale.ROOT, " %14.2f",
          perToken.getOrDefault(g, 0.0))));
      out.println(line);
    }
    out.println();
  }
}
