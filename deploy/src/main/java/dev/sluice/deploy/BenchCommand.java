package dev.sluice.deploy;

import dev.sluice.bench.LoadResult;
import dev.sluice.bench.SideBySide;
import java.net.URI;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice bench}: streaming load side by side against one or more OpenAI endpoints. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Closed-loop streaming chat load against each --target in alternating rounds; "
        + "prints tokens/s and time to first byte with ratios to the first target. Loopback or "
        + "your own test hosts only.")
final class BenchCommand implements Callable<Integer> {

  @Option(names = "--target", required = true, paramLabel = "URL",
      description = "Base URL, e.g. http://127.0.0.1:8000 (repeat to compare; the first is the "
          + "baseline).")
  List<URI> targets;

  @Option(names = "--concurrency", split = ",", defaultValue = "1,64",
      description = "Concurrent connections; a list runs each (default: 1,64).")
  List<Integer> concurrency;

  @Option(names = "--requests", defaultValue = "2000",
      description = "Requests per target and concurrency level (default: 2000).")
  int requests;

  @Option(names = "--max-tokens", defaultValue = "256",
      description = "Output tokens per request (default: 256).")
  int maxTokens;

  @Option(names = "--rounds", defaultValue = "4",
      description = "Alternating rounds the requests are split into (default: 4).")
  int rounds;

  @Option(names = "--warmup", defaultValue = "200",
      description = "Unmeasured requests per target first (default: 200).")
  int warmup;

  @Override
  public Integer call() throws Exception {
    for (URI target : targets) {
      if (target.getHost() == null || target.getPort() < 0 || !"http".equals(target.getScheme())) {
        throw new IllegalArgumentException(
            "--target: " + target + " (expected: http://host:port)");
      }
    }
    if (rounds < 1) {
      throw new IllegalArgumentException("--rounds: " + rounds + " (expected: >= 1)");
    }
    for (int level : concurrency) {
      List<LoadResult> results = SideBySide.run(targets, level, requests, maxTokens, rounds,
          warmup, System.err);
      SideBySide.print(System.out, results);
      System.out.println();
    }
    return 0;
  }
}
