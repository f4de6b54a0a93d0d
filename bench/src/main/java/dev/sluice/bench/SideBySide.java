package dev.sluice.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The same workload against several targets in alternating rounds (A B C A B C ...), so that the
 * noise of a shared machine falls on all of them alike. Each target gets the same requests.
 * Given the serving processes' {@link ServerCpu}, each target is charged the CPU every group
 * used during its measured rounds (warm-ups excluded).
 */
public final class SideBySide {

  private SideBySide() {}

  public static List<BenchResult> run(List<URI> targets, LoadOptions options, int rounds,
      Progress progress) throws InterruptedException {
    return run(targets, options, rounds, progress, ServerCpu.NONE);
  }

  public static List<BenchResult> run(List<URI> targets, LoadOptions options, int rounds,
      Progress progress, ServerCpu serverCpu) throws InterruptedException {
    if (rounds < 1) {
      throw new IllegalArgumentException("--rounds: " + rounds + " (expected: >= 1)");
    }
    List<Measurements> measured = new ArrayList<>();
    double[] seconds = new double[targets.size()];
    double[] cpu = new double[targets.size()];
    List<Map<String, Long>> serverNanos = new ArrayList<>();
    targets.forEach(t -> {
      measured.add(new Measurements());
      serverNanos.add(new LinkedHashMap<>());
    });
    long perRound = Math.max(1, options.requests() / rounds);
    for (int round = 0; round < rounds; round++) {
      for (int t = 0; t < targets.size(); t++) {
        progress.label(String.format(Locale.ROOT, "c=%d round %d/%d target %d/%d",
            options.concurrency(), round + 1, rounds, t + 1, targets.size()));
        LoadOptions roundOptions = options.withTarget(targets.get(t))
            .withRequests(perRound, round == 0 ? options.warmup() : 0);
        LoadRun.warmUp(roundOptions);
        Map<String, Long> before = serverCpu.sample();
        LoadRun.Round result = LoadRun.measuredRound(roundOptions, progress, measured.get(t),
            round * perRound);
        Map<String, Long> charged = serverNanos.get(t);
        serverCpu.sample().forEach((group, nanos) -> charged.merge(group,
            nanos - before.getOrDefault(group, 0L), Long::sum));
        seconds[t] += result.seconds();
        cpu[t] += result.cpuSeconds();
      }
    }
    List<BenchResult> results = new ArrayList<>();
    for (int t = 0; t < targets.size(); t++) {
      Map<String, Double> serverSeconds = new LinkedHashMap<>();
      serverNanos.get(t).forEach((group, nanos) -> serverSeconds.put(group, nanos / 1e9));
      results.add(BenchResult.of(options.withTarget(targets.get(t)), measured.get(t), seconds[t],
          cpu[t], serverSeconds));
    }
    return results;
  }
}
