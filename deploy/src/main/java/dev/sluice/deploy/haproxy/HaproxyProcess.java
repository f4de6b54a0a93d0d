package dev.sluice.deploy.haproxy;

import dev.sluice.core.process.ChildProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HAProxy in master-worker mode ({@code -W}), run by Sluice. Reloads go through the master
 * CLI ({@code reload}): the master starts a new worker that takes over the listening sockets
 * from the old one ({@code -x sockpair}), and the old worker finishes the connections it has,
 * so a reload drops none. HAProxy's output goes to the node's log (logger {@code
 * sluice.haproxy}).
 *
 * <p>It stops with the node, also when the node is killed: HAProxy runs as a {@link
 * ChildProcess}, under a small shell that holds a pipe from this JVM; when the pipe closes (on
 * {@link #close()}, or because this JVM died) the shell asks HAProxy's process group for a soft
 * stop (SIGUSR1: stop listening, finish the connections in flight, bounded by {@code
 * hard-stop-after}) and kills what is left after {@link #STOP_GRACE}.
 */
public final class HaproxyProcess implements AutoCloseable {

  /** From the soft stop to SIGKILL, on {@link #close()} and when this JVM dies. */
  static final Duration STOP_GRACE = Duration.ofSeconds(60);
  private static final Logger log = LoggerFactory.getLogger("sluice.haproxy");

  private final ChildProcess process;
  private final Path masterSocket;
  /** Set by {@link #stop}: the workers' end is expected, not an alert. */
  private final AtomicBoolean stopping;

  private HaproxyProcess(ChildProcess process, Path masterSocket, AtomicBoolean stopping) {
    this.process = process;
    this.masterSocket = masterSocket;
    this.stopping = stopping;
  }

  /**
   * Starts HAProxy on {@code config} (already written) and waits until it accepts connections on
   * {@code host:port}; fails with HAProxy's own last words if it exits or does not listen.
   */
  public static HaproxyProcess start(HaproxyBinary binary, Path config, Path dir, String host,
      int port, Duration deadline) throws IOException, InterruptedException {
    check(binary, config);
    Path socket = dir.resolve("master.sock");
    AtomicBoolean stopping = new AtomicBoolean();
    ChildProcess process = ChildProcess.builder(List.of(binary.path().toString(), "-W", "-db",
            "-S", socket.toString(), "-f", config.toString()))
        .output(log, "haproxy")
        .lineLogger((logger, line) -> logLine(logger, line, stopping.get()))
        .stopSignal("USR1")
        .orphanGrace(STOP_GRACE)
        .start();
    HaproxyProcess haproxy = new HaproxyProcess(process, socket, stopping);
    try {
      haproxy.awaitListening(host, port, deadline);
    } catch (IOException | RuntimeException | InterruptedException e) {
      haproxy.close();
      throw e;
    }
    return haproxy;
  }

  /** Fails with HAProxy's diagnostics unless {@code config} is valid ({@code haproxy -c}). */
  public static void check(HaproxyBinary binary, Path config)
      throws IOException, InterruptedException {
    Process check = new ProcessBuilder(binary.path().toString(), "-c", "-q", "-f",
        config.toString()).redirectErrorStream(true).start();
    String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!check.waitFor(30, TimeUnit.SECONDS)) {
      check.destroyForcibly();
      throw new IOException("haproxy -c did not finish within 30 s");
    }
    if (check.exitValue() != 0) {
      throw new IOException("HAProxy " + binary.version() + " refuses " + config + ": "
          + output.strip());
    }
  }

  /**
   * Loads the config file again (check it first): a new worker, no connection dropped. Returns
   * when the master took the command; {@link #awaitServers} tells when the new worker runs.
   */
  public void reload() throws IOException {
    masterCommand("reload");
  }

  /**
   * Waits until HAProxy's newest worker has exactly {@code names} as the servers of
   * {@code backend}: a reload is done only then (the master re-executes itself, so its CLI
   * refuses connections for a moment, and until the new worker is up the old one answers).
   */
  public void awaitServers(String backend, Set<String> names, Duration deadline)
      throws IOException, InterruptedException {
    long end = System.nanoTime() + deadline.toNanos();
    Set<String> seen = Set.of();
    String failure = "";
    while (System.nanoTime() - end < 0) {
      try {
        seen = serverNames(masterCommand("@1 show servers state " + backend));
        if (seen.equals(names)) {
          return;
        }
      } catch (IOException e) {
        failure = " (" + e.getMessage() + ")";
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
    throw new IOException("HAProxy's worker did not load the new config within "
        + deadline.toMillis() + " ms: its servers are " + seen + failure + "; last output: "
        + lastOutput());
  }

  /** The server names in the output of {@code show servers state}. */
  static Set<String> serverNames(String state) {
    Set<String> names = new TreeSet<>();
    for (String line : state.split("\n")) {
      String[] fields = line.strip().split("\\s+");
      // "<be_id> <be_name> <srv_id> <srv_name> ..."; the first lines are a version and a header.
      if (fields.length > 4 && !line.startsWith("#") && fields[0].chars().allMatch(
          Character::isDigit)) {
        names.add(fields[3]);
      }
    }
    return names;
  }

  /** One command on the master CLI; its whole answer. */
  private String masterCommand(String command) throws IOException {
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      channel.connect(UnixDomainSocketAddress.of(masterSocket));
      channel.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.US_ASCII)));
      channel.shutdownOutput();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      ByteBuffer buffer = ByteBuffer.allocate(8192);
      while (channel.read(buffer.clear()) >= 0) {
        answer.write(buffer.array(), 0, buffer.position());
      }
      return answer.toString(StandardCharsets.UTF_8);
    }
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** HAProxy's master process (its workers are its children). */
  public ProcessHandle handle() {
    return ProcessHandle.of(process.pid()).orElseThrow(() -> new IllegalStateException(
        "HAProxy's master (pid " + process.pid() + ") has exited"));
  }

  /** HAProxy's last lines of output. */
  public String lastOutput() {
    return process.lastOutput();
  }

  // HAProxy marks routine events of a reload ("Proxy ... stopped", "Former worker ... exited")
  // as warnings; only its alerts are errors here, but not the workers' end in a stop.
  private static void logLine(Logger logger, String line, boolean stopping) {
    if (line.contains("[ALERT]") && !(stopping && line.contains("exited with code"))) {
      logger.error("{}", line);
    } else {
      logger.info("{}", line);
    }
  }

  private void awaitListening(String host, int port, Duration deadline)
      throws IOException, InterruptedException {
    long end = System.nanoTime() + deadline.toNanos();
    while (true) {
      try (Socket probe = new Socket()) {
        probe.connect(new InetSocketAddress(host, port), 1000);
        return;
      } catch (IOException notYet) {
        if (!process.isAlive()) {
          throw new IOException("HAProxy exited (" + process.onExit().join() + ") before "
              + "listening on " + host + ":" + port + ": " + lastOutput());
        }
        if (System.nanoTime() > end) {
          throw new IOException("HAProxy did not listen on " + host + ":" + port + " within "
              + deadline.toSeconds() + " s: " + lastOutput());
        }
        TimeUnit.MILLISECONDS.sleep(50);
      }
    }
  }

  /**
   * Stops HAProxy for good, as the ingress drains: {@code frontend} stops listening at once, the
   * requests in flight on every worker (old ones of earlier reloads included) finish for up to
   * {@code drain}, then HAProxy exits (SIGTERM to the master), closing the idle keep-alive
   * connections. A soft stop alone keeps those open until they time out ({@code option
   * idle-close-on-response} waits for a last request on each, which a client's idle pool may
   * never send), so a node with pooled clients took 10 s more to stop. Falls back to
   * {@link #close()} when the CLI does not answer. Returns when HAProxy is gone.
   */
  public void stop(String frontend, Duration drain) throws InterruptedException {
    stopping.set(true);
    try {
      masterCommand("@1 disable frontend " + frontend);
      long end = System.nanoTime() + drain.toNanos();
      while (streams(frontend) > 0 && System.nanoTime() - end < 0) {
        TimeUnit.MILLISECONDS.sleep(50);
      }
      handle().destroy();
    } catch (IOException | IllegalStateException e) {
      log.warn("HAProxy's CLI did not answer while stopping ({}): soft stop instead",
          e.toString());
    }
    close();
  }

  /** Requests in flight through {@code frontend} on every worker, as {@code show sess} lists. */
  private int streams(String frontend) throws IOException {
    int streams = 0;
    for (String pid : workers(masterCommand("show proc"))) {
      streams += streams(masterCommand("@!" + pid + " show sess"), frontend);
    }
    return streams;
  }

  /** The pids of the workers, current and old, in the output of {@code show proc}. */
  static List<String> workers(String showProc) {
    List<String> pids = new java.util.ArrayList<>();
    for (String line : showProc.split("\n")) {
      String[] fields = line.strip().split("\\s+");
      if (fields.length > 1 && fields[1].equals("worker")) {
        pids.add(fields[0]);
      }
    }
    return pids;
  }

  /**
   * The streams of {@code frontend} in the output of {@code show sess}: requests in flight (an
   * idle keep-alive connection has none; the CLI's own is {@code fe=GLOBAL}).
   */
  static int streams(String showSess, String frontend) {
    int streams = 0;
    for (String line : showSess.split("\n")) {
      if (line.contains(" fe=" + frontend + " ")) {
        streams++;
      }
    }
    return streams;
  }

  /**
   * Soft stop: stop listening, let connections in flight finish (bounded by hard-stop-after);
   * SIGKILL after {@link #STOP_GRACE}. Returns when HAProxy is gone.
   */
  @Override
  public void close() throws InterruptedException {
    try {
      process.stop(STOP_GRACE).get(STOP_GRACE.plusSeconds(10).toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      log.warn("HAProxy did not stop within {} s: {}", STOP_GRACE.toSeconds(), e.toString());
    }
  }
}
