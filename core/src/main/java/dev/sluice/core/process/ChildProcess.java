package dev.sluice.core.process;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A command run as a child process that never outlives this JVM, also when the JVM is killed
 * with {@code kill -9}. See the package documentation for how.
 *
 * <pre>
 * ChildProcess engine = ChildProcess.builder(List.of("vllm", "serve", "m", "--port", "8000"))
 *     .environment(Map.of("CUDA_VISIBLE_DEVICES", "0"))
 *     .output(log, "llm#m#abcd1234")
 *     .start();
 * engine.onExit().thenAccept(code -&gt; ...);
 * engine.stop(Duration.ofSeconds(20));
 * </pre>
 */
public final class ChildProcess {

  /** Lines of output kept for error messages ({@link #lastOutput()}). */
  public static final int TAIL_LINES = 20;
  /** Longer lines are cut (an engine printing a progress bar without newlines). */
  static final int MAX_LINE_BYTES = 8192;
  private static final Duration PID_TIMEOUT = Duration.ofSeconds(10);
  /** After the child exits, how long its output may take to drain through the pumps. */
  private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(1);
  private static final boolean SETSID = onPath("setsid");

  // $0 = a name for the shell's messages, $1 = the stop signal, $2 = the default grace in ms,
  // $3 = 1 for a process group of the child's own, "$@" after shift 3 = the command. The pipe
  // from this JVM is kept on fd 3 for the watcher (background jobs of a non-interactive shell
  // read /dev/null) and closed for the child. The child's own shell prints its PID first, then
  // execs the command (same PID), so the first line of stdout is always the PID. The watcher
  // waits for a line (the grace in ms for stop) or the end of the pipe (this JVM died: the
  // default grace), then signals the child's group and kills it after the grace. When the
  // child exits on its own, the main shell does the same to whatever the child left behind.
  private static final String SUPERVISOR = """
      sig=$1 grace=$2 group=$3
      shift 3
      exec 3<&0
      if [ "$group" = 1 ]; then
        setsid sh -c 'echo "$$"; exec "$@"' sh "$@" 3<&- </dev/null &
        pid=$!
        target=-$pid
      else
        sh -c 'echo "$$"; exec "$@"' sh "$@" 3<&- </dev/null &
        pid=$!
        target=$pid
      fi
      reap() {
        kill -s "$sig" -- "$target" 2>/dev/null
        n=$(( $1 / 100 ))
        while [ "$n" -gt 0 ] && kill -s 0 -- "$target" 2>/dev/null; do
          sleep 0.1
          n=$((n - 1))
        done
        if kill -s 0 -- "$target" 2>/dev/null; then kill -s KILL -- "$target" 2>/dev/null; fi
      }
      ( read -r ms <&3
        case "$ms" in ''|*[!0-9]*) ms=$grace ;; esac
        reap "$ms" ) </dev/null >/dev/null 2>&1 &
      watcher=$!
      exec 3<&-
      trap '' INT QUIT
      wait "$pid" 2>/dev/null
      code=$?
      reap "$grace"
      kill "$watcher" 2>/dev/null
      exit "$code"
      """;

  private final Process shell;
  private final Logger log;
  private final String prefix;
  private final boolean ownGroup;
  private final Deque<String> tail = new ArrayDeque<>();
  private final CompletableFuture<Long> pid = new CompletableFuture<>();
  private final CompletableFuture<Void> stdoutDone = new CompletableFuture<>();
  private final CompletableFuture<Void> stderrDone = new CompletableFuture<>();
  private final CompletableFuture<Integer> exit;
  private final BiConsumer<Logger, String> lineLogger;
  private boolean stopping;

  private ChildProcess(Builder builder, Process shell) {
    this.shell = shell;
    this.log = builder.log;
    this.prefix = builder.prefix;
    this.ownGroup = builder.ownGroup;
    this.lineLogger = builder.lineLogger;
    pump(shell.getInputStream(), "stdout", stdoutDone, true);
    pump(shell.getErrorStream(), "stderr", stderrDone, false);
    CompletableFuture<Void> drained = CompletableFuture.allOf(stdoutDone, stderrDone);
    this.exit = shell.onExit().thenCompose(p -> drained
            .completeOnTimeout(null, DRAIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .thenApply(ignored -> p.exitValue()))
        .whenComplete((code, failure) -> closeLifeline(""));
  }

  /** A child running {@code command} (the program and its arguments). */
  public static Builder builder(List<String> command) {
    return new Builder(command);
  }

  /** The child's PID: the command's own process, not the supervising shell. */
  public long pid() {
    return pid.join();
  }

  /**
   * Whether the child leads a process group of its own (if {@code setsid} is available), so
   * that the stop signals reach the processes it started too.
   */
  public boolean ownProcessGroup() {
    return ownGroup;
  }

  public boolean isAlive() {
    return !exit.isDone();
  }

  /**
   * Completes when the child has exited (and what it left in its process group is gone), with
   * its exit code: 128 + the signal's number if a signal ended it (143 for SIGTERM, 137 for
   * SIGKILL), 127 if the program was not found.
   */
  public CompletableFuture<Integer> onExit() {
    return exit.thenApply(code -> code);
  }

  /**
   * Sends the stop signal (SIGTERM unless the builder said otherwise) to the child (and its
   * process group), and SIGKILL after {@code grace} if it is still there. Idempotent: a second
   * call changes nothing. Completes like {@link #onExit()}.
   */
  public CompletableFuture<Integer> stop(Duration grace) {
    Objects.requireNonNull(grace, "grace");
    closeLifeline(Math.max(0, grace.toMillis()) + "\n");
    return onExit();
  }

  /** The child's last {@link #TAIL_LINES} lines of output (stdout and stderr), oldest first. */
  public String lastOutput() {
    synchronized (tail) {
      return String.join("\n", tail);
    }
  }

  /** Writes {@code message} (may be empty) to the watcher, then closes the pipe; once. */
  private synchronized void closeLifeline(String message) {
    if (stopping) {
      return;
    }
    stopping = true;
    try (OutputStream lifeline = shell.getOutputStream()) {
      lifeline.write(message.getBytes(StandardCharsets.US_ASCII));
    } catch (IOException shellGone) {
      // the shell has exited: nothing left to stop
    }
  }

  private void pump(InputStream stream, String name, CompletableFuture<Void> done,
      boolean pidFirst) {
    Thread thread = new Thread(() -> {
      try (stream) {
        LineReader lines = new LineReader(stream);
        if (pidFirst) {
          String first = lines.next();
          if (first == null || !first.matches("[0-9]+")) {
            pid.completeExceptionally(new IOException("the supervising shell printed '" + first
                + "' instead of the child's PID"));
            if (first != null) {
              line(first);
            }
          } else {
            pid.complete(Long.parseLong(first));
          }
        }
        for (String line = lines.next(); line != null; line = lines.next()) {
          line(line);
        }
      } catch (IOException | RuntimeException e) {
        log.debug("[{}] {} closed: {}", prefix, name, e.toString());
      } finally {
        if (pidFirst) {
          pid.completeExceptionally(new IOException("the child's output ended before its PID"));
        }
        done.complete(null);
      }
    }, "child-" + prefix + "-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  private void line(String line) {
    if (lineLogger != null) {
      lineLogger.accept(log, line);
    } else {
      log.info("[{}] {}", prefix, line);
    }
    synchronized (tail) {
      tail.addLast(line);
      if (tail.size() > TAIL_LINES) {
        tail.removeFirst();
      }
    }
  }

  private static boolean onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }

  /** What to start and how; {@link #start()} starts it. */
  public static final class Builder {
    private final List<String> command;
    private Map<String, String> environment = Map.of();
    private Logger log = LoggerFactory.getLogger(ChildProcess.class);
    private String prefix = "child";
    private BiConsumer<Logger, String> lineLogger;
    private String stopSignal = "TERM";
    private Duration orphanGrace = Duration.ofSeconds(10);
    private boolean ownGroup = true;

    private Builder(List<String> command) {
      this.command = List.copyOf(Objects.requireNonNull(command, "command"));
      if (this.command.isEmpty() || this.command.get(0).isBlank()) {
        throw new IllegalArgumentException("command: " + command + " (expected: a program, "
            + "then its arguments)");
      }
    }

    /** Variables added to this JVM's environment for the child. */
    public Builder environment(Map<String, String> environment) {
      this.environment = Map.copyOf(Objects.requireNonNull(environment, "environment"));
      return this;
    }

    /**
     * Where the child's output goes: every line of its stdout and stderr at INFO on
     * {@code log} as {@code [prefix] line}.
     */
    public Builder output(Logger log, String prefix) {
      this.log = Objects.requireNonNull(log, "log");
      this.prefix = Objects.requireNonNull(prefix, "prefix");
      return this;
    }

    /**
     * Logs each line of output with {@code lineLogger} (given the logger of {@link #output})
     * instead, e.g. at a level by the line's content.
     */
    public Builder lineLogger(BiConsumer<Logger, String> lineLogger) {
      this.lineLogger = Objects.requireNonNull(lineLogger, "lineLogger");
      return this;
    }

    /** The signal that asks the child to stop, without "SIG": {@code TERM} by default. */
    public Builder stopSignal(String signal) {
      Objects.requireNonNull(signal, "signal");
      if (!signal.matches("[A-Z][A-Z0-9]*")) {
        throw new IllegalArgumentException("signal: '" + signal + "' (expected: a name such "
            + "as TERM or USR1)");
      }
      this.stopSignal = signal;
      return this;
    }

    /**
     * How long the child may take to stop when this JVM dies (or the child exits and leaves
     * processes behind), before SIGKILL; 10 s by default.
     */
    public Builder orphanGrace(Duration grace) {
      Objects.requireNonNull(grace, "grace");
      if (grace.isNegative()) {
        throw new IllegalArgumentException("grace: " + grace + " (expected: >= 0)");
      }
      this.orphanGrace = grace;
      return this;
    }

    /**
     * Whether the child gets a process group of its own (the default; needs {@code setsid},
     * otherwise only the child itself is signalled).
     */
    public Builder ownProcessGroup(boolean ownGroup) {
      this.ownGroup = ownGroup;
      return this;
    }

    /**
     * Starts the child; returns once its PID is known. Fails if the supervising shell cannot
     * start; a command that cannot be executed starts and exits with 127.
     */
    public ChildProcess start() throws IOException {
      ownGroup = ownGroup && SETSID;
      List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", SUPERVISOR, "sluice-child",
          stopSignal, Long.toString(orphanGrace.toMillis()), ownGroup ? "1" : "0"));
      argv.addAll(command);
      ProcessBuilder builder = new ProcessBuilder(argv);
      builder.environment().putAll(environment);
      ChildProcess child = new ChildProcess(this, builder.start());
      try {
        child.pid.get(PID_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        child.stop(Duration.ZERO);
        throw new IOException("could not start " + command + ": " + e.getMessage()
            + "; output: " + child.lastOutput(), e);
      } catch (InterruptedException e) {
        child.stop(Duration.ZERO);
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while starting " + command, e);
      }
      return child;
    }
  }

  /** Lines of at most {@link #MAX_LINE_BYTES} bytes (the rest of a longer line is dropped). */
  static final class LineReader {
    private final InputStream in;
    private final byte[] buffer = new byte[8192];
    private int start;
    private int end;

    LineReader(InputStream in) {
      this.in = in;
    }

    /** The next line without its end, or null at the end of the stream. */
    String next() throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      boolean any = false;
      while (true) {
        if (start == end) {
          start = 0;
          end = in.read(buffer);
          if (end <= 0) {
            end = 0;
            return any ? text(line) : null;
          }
        }
        any = true;
        int newline = start;
        while (newline < end && buffer[newline] != '\n') {
          newline++;
        }
        int room = MAX_LINE_BYTES - line.size();
        line.write(buffer, start, Math.min(room, newline - start));
        if (newline < end) {
          start = newline + 1;
          return text(line);
        }
        start = end;
      }
    }

    private static String text(ByteArrayOutputStream line) {
      String text = line.toString(StandardCharsets.UTF_8);
      return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }
  }
}
