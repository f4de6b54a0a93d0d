package dev.sluice.deploy;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sluice} executable. */
@Command(
    name = "sluice",
    mixinStandardHelpOptions = true,
    versionProvider = SluiceCli.Version.class,
    description = "Sluice: an LLM-serving control plane with direct streaming.",
    subcommands = {LocalCommand.class, NodeCommand.class, ApiCommands.Deploy.class,
        ApiCommands.Scale.class, ApiCommands.Status.class, ApiCommands.Config.class,
        ApiCommands.Delete.class, EngineSimCommand.class, BenchCommand.class,
        HaproxyCommand.class, CommandLine.HelpCommand.class})
public final class SluiceCli implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  private static final String COMMON_PARALLELISM =
      "java.util.concurrent.ForkJoinPool.common.parallelism";

  public static void main(String[] args) {
    // With fewer than 3 cores the common pool has one thread, and the JDK then runs every async
    // CompletableFuture step without an executor (the JDK's HttpClient, Scala's future adapter)
    // on a new thread each: a thread per request. Two threads keep them on the common pool.
    if (System.getProperty(COMMON_PARALLELISM) == null) {
      System.setProperty(COMMON_PARALLELISM,
          String.valueOf(Math.max(2, Runtime.getRuntime().availableProcessors() - 1)));
    }
    System.exit(execute(args));
  }

  /** Runs the CLI and returns the exit code (0 ok, 1 failed at runtime, 2 bad usage). */
  public static int execute(String... args) {
    return execute(new java.io.PrintWriter(System.out, true),
        new java.io.PrintWriter(System.err, true), args);
  }

  /** The same, printing to {@code out} and {@code err}. */
  static int execute(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
    CommandLine cli = new CommandLine(new SluiceCli());
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      commandLine.getErr().println("sluice: " + message(e));
      return 1;
    });
    return cli.execute(args);
  }

  static String message(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && (cause.getMessage() == null
        || cause instanceof java.util.concurrent.ExecutionException)) {
      cause = cause.getCause();
    }
    return cause.getMessage() != null ? cause.getMessage() : cause.toString();
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "a command is required: local, node, deploy, scale, status, delete, engine-sim or "
            + "bench");
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = SluiceCli.class.getPackage().getImplementationVersion();
      return new String[] {"sluice " + (version == null ? "dev" : version)};
    }
  }
}
