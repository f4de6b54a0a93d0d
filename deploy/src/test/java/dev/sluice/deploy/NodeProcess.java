package dev.sluice.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of its own running a main class of this test classpath, for tests that need a node's
 * whole process: its heap limit, its exit code. Output goes to a log file; {@link #close}
 * stops it (SIGTERM, then SIGKILL) so no process outlives the test.
 */
final class NodeProcess implements AutoCloseable {

  final Process process;
  final Path log;

  private NodeProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static NodeProcess start(List<String> jvmOptions, Class<?> main, List<String> args,
      java.util.Map<String, String> env) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(args);
    Path log = Files.createTempFile("sluice-node", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().put("SLUICE_METRICS_PORT", "0");  // several nodes on one machine
    builder.environment().putAll(env);
    return new NodeProcess(builder.start(), log);
  }

  String output() throws IOException {
    return Files.readString(log);
  }

  /** Waits until the log contains {@code text}, failing if the process exits first. */
  void awaitOutput(String text, Duration deadline) throws Exception {
    long end = System.nanoTime() + deadline.toNanos();
    while (!output().contains(text)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the process exited (" + process.exitValue()
            + ") before printing '" + text + "':\n" + output());
      }
      if (System.nanoTime() > end) {
        throw new IllegalStateException("no '" + text + "' within " + deadline + ":\n"
            + output());
      }
      process.waitFor(50, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void close() throws Exception {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }
}
