package dev.sluice.deploy.haproxy;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HAProxy in master-worker mode ({@code -W}), run by Sluice. Reloads go through the master
 * CLI ({@code reload}): the master starts a new worker that takes over the listening sockets
 * from the old one ({@code -x sockpair}), and the old worker finishes the connections it has,
 * so a reload drops none. HAProxy's output goes to the node's log (logger {@code
 * sluice.haproxy}).
 *
 * <p>It stops with the node, also when the node is killed: HAProxy runs under a small shell that
 * holds the pipe from this JVM on a spare descriptor; when the pipe closes (on {@link #close()},
 * or because this JVM died) the shell asks HAProxy for a soft stop (SIGUSR1: stop listening,
 * finish the connections in flight, bounded by {@code hard-stop-after}).
 */
public final class HaproxyProcess implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger("sluice.haproxy");
  // $0 = haproxy, $1 = master socket, $2 = config. Background jobs of a non-interactive shell
  // read /dev/null, so the pipe is kept on fd 3 for the watcher and closed for HAProxy.
  private static final String SUPERVISOR = "exec 3<&0\n"
      + "\"$0\" -W -db -S \"$1\" -f \"$2\" 3<&- </dev/null & hp=$!\n"
      + "( cat <&3 >/dev/null; kill -USR1 $hp 2>/dev/null ) &\n"
      + "exec 3<&-\n"
      + "wait $hp\n";
  private static final int LOG_TAIL = 20;

  private final HaproxyBinary binary;
  private final Process process;
  private final Path masterSocket;
  private final Deque<String> tail = new ArrayDeque<>();

  private HaproxyProcess(HaproxyBinary binary, Process process, Path masterSocket) {
    this.binary = binary;
    this.process = process;
    this.masterSocket = masterSocket;
    Thread pump = new Thread(this::pumpOutput, "haproxy-output");
    pump.setDaemon(true);
    pump.start();
  }

  /**
   * Starts HAProxy on {@code config} (already written) and waits until it accepts connections on
   * {@code host:port}; fails with HAProxy's own last words if it exits or does not listen.
   */
  public static HaproxyProcess start(HaproxyBinary binary, Path config, Path dir, String host,
      int port, Duration deadline) throws IOException, InterruptedException {
    check(binary, config);
    Path socket = dir.resolve("master.sock");
    Process process = new ProcessBuilder("/bin/sh", "-c", SUPERVISOR, binary.path().toString(),
        socket.toString(), config.toString()).redirectErrorStream(true).start();
    HaproxyProcess haproxy = new HaproxyProcess(binary, process, socket);
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

  /** The process Sluice started (the shell supervising HAProxy's master). */
  public ProcessHandle handle() {
    return process.toHandle();
  }

  /** HAProxy's last lines of output. */
  public synchronized String lastOutput() {
    return String.join("\n", tail);
  }

  private void pumpOutput() {
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(
        process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        // HAProxy marks routine events of a reload ("Proxy ... stopped", "Former worker ...
        // exited") as warnings; only its alerts are errors here.
        if (line.contains("[ALERT]")) {
          log.error("{}", line);
        } else {
          log.info("{}", line);
        }
        synchronized (this) {
          tail.addLast(line);
          if (tail.size() > LOG_TAIL) {
            tail.removeFirst();
          }
        }
      }
    } catch (IOException closed) {
      // the process ended
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
          process.waitFor();
          throw new IOException("HAProxy exited (" + process.exitValue() + ") before listening "
              + "on " + host + ":" + port + ": " + lastOutput());
        }
        if (System.nanoTime() > end) {
          throw new IOException("HAProxy did not listen on " + host + ":" + port + " within "
              + deadline.toSeconds() + " s: " + lastOutput());
        }
        process.waitFor(50, TimeUnit.MILLISECONDS);
      }
    }
  }

  /** Soft stop: stop listening, let connections in flight finish (bounded by hard-stop-after). */
  @Override
  public void close() throws InterruptedException {
    try {
      process.getOutputStream().close();
    } catch (IOException alreadyClosed) {
      // the shell is gone
    }
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
