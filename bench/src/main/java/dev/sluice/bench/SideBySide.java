package dev.sluice.bench;

import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs the same load against several targets in alternating rounds (A B A B ...) so that the noise
 * of a shared machine falls on all of them alike, then prints one table with ratios to the first
 * target.
 */
public final class SideBySide {

  private SideBySide() {}

  public static List<LoadResult> run(List<URI> targets, int concurrency, int requests,
      int maxTokens, int rounds, int warmup, PrintStream progress) throws InterruptedException {
    for (URI target : targets) {
      if (warmup > 0) {
        LoadRun.run(new LoadRun.Options(target, Math.min(concurrency, warmup), warmup, maxTokens,
            "warm up"));
      }
    }
    List<LoadResult> totals = new ArrayList<>();
    int perRound = Math.max(1, requests / rounds);
    for (int round = 0; round < rounds; round++) {
      for (int t = 0; t < targets.size(); t++) {
        progress.printf(Locale.ROOT, "\r  concurrency %d: round %d/%d, target %d/%d   ",
            concurrency, round + 1, rounds, t + 1, targets.size());
        progress.flush();
        LoadResult result = LoadRun.run(new LoadRun.Options(targets.get(t), concurrency,
            perRound, maxTokens, "side by side " + round));
        if (totals.size() <= t) {
          totals.add(result);
        } else {
          totals.set(t, totals.get(t).plus(result));
        }
      }
    }
    progress.print("\r");
    progress.flush();
    return totals;
  }

  public static void print(PrintStream out, List<LoadResult> results) {
    LoadResult base = results.get(0);
    out.printf(Locale.ROOT, "%-28s %5s %9s %11s %7s %9s %9s %9s %8s %7s %s%n", "target", "conc",
        "req/s", "tokens/s", "ratio", "ttfb p50", "ttfb p99", "+p50 ms", "+p99 ms", "gen cpu",
        "outcomes");
    for (LoadResult r : results) {
      out.printf(Locale.ROOT, "%-28s %5d %9.1f %11.0f %7.3f %9.3f %9.3f %9.3f %8.3f %6.0f%% %s%n",
          r.target(), r.concurrency(), r.requestsPerSecond(), r.tokensPerSecond(),
          r.tokensPerSecond() / base.tokensPerSecond(), r.ttfbMillis(50), r.ttfbMillis(99),
          r.ttfbMillis(50) - base.ttfbMillis(50), r.ttfbMillis(99) - base.ttfbMillis(99),
          100.0 * r.clientCpuNanos() / 1e9 / r.seconds(), r.outcomes());
    }
  }
}
