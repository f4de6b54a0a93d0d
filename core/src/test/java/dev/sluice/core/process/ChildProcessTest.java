package dev.sluice.core.process;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sluice.core.testing.Await;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ChildProcessTest {

  private static final Duration DEADLINE = Duration.ofSeconds(15);

  private final Logger logger = (Logger) LoggerFactory.getLogger("test.child-process");
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private final List<ChildProcess> started = new ArrayList<>();

  @BeforeEach
  void captureLog() {
    logger.setLevel(Level.INFO);
    logger.setAdditive(false); // to the list only: the test output stays quiet
    appender.start();
    logger.addAppender(appender);
  }

  @AfterEach
  void stopAll() {
    logger.detachAppender(appender);
    started.forEach(child -> child.stop(Duration.ZERO).join());
  }

  private ChildProcess start(String... command) throws Exception {
    ChildProcess child = ChildProcess.builder(List.of(command))
        .output(logger, "llm#m#abcd1234")
        .environment(Map.of("SLUICE_TEST_VAR", "from-env"))
        .start();
    started.add(child);
    return child;
  }

  private List<String> logged() {
    synchronized (appender.list) {
      return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Test
  void outputOfStdoutAndStderrReachesTheLoggerWithThePrefix() throws Exception {
    ChildProcess child = start("sh", "-c",
        "echo \"out $SLUICE_TEST_VAR\"; echo 'err line' >&2; exit 0");

    assertThat(child.onExit().get(15, TimeUnit.SECONDS)).isZero();
    assertThat(logged()).contains("[llm#m#abcd1234] out from-env",
        "[llm#m#abcd1234] err line");
    assertThat(child.lastOutput()).contains("out from-env", "err line");
  }

  @Test
  void pidIsTheCommandsOwnProcess() throws Exception {
    ChildProcess child = start("sleep", "300");

    // The PID is known just before the shell execs the command in the same process.
    Await.until(DEADLINE, "pid " + child.pid() + " runs sleep", () -> ProcessHandle
        .of(child.pid()).flatMap(handle -> handle.info().command())
        .map(command -> Path.of(command).getFileName().toString().equals("sleep"))
        .orElse(false));
    assertThat(alive(child.pid())).isTrue();
  }

  @Test
  void stopSendsSigtermAndTheChildExits() throws Exception {
    ChildProcess child = start("sleep", "300");
    long pid = child.pid();

    int code = child.stop(Duration.ofSeconds(60)).get(15, TimeUnit.SECONDS);

    assertThat(code).as("killed by SIGTERM (128 + 15)").isEqualTo(143);
    assertThat(child.isAlive()).isFalse();
    Await.until(DEADLINE, "sleep gone", () -> !alive(pid));
  }

  @Test
  void aChildIgnoringSigtermIsKilledAfterTheGrace() throws Exception {
    ChildProcess child = start("sh", "-c",
        "trap '' TERM; echo ready; while :; do sleep 1; done");
    Await.until(DEADLINE, "trap set", () -> child.lastOutput().contains("ready"));

    int code = child.stop(Duration.ofMillis(500)).get(15, TimeUnit.SECONDS);

    assertThat(code).as("killed by SIGKILL (128 + 9)").isEqualTo(137);
    Await.until(DEADLINE, "shell gone", () -> !alive(child.pid()));
  }

  @Test
  void stopReachesTheProcessesTheChildStarted() throws Exception {
    ChildProcess child = start("sh", "-c", "sleep 300 & echo $!; wait");
    assertThat(child.ownProcessGroup()).as("setsid available").isTrue();
    Await.until(DEADLINE, "grandchild started", () -> !child.lastOutput().isEmpty());
    long grandchild = Long.parseLong(child.lastOutput().strip());
    assertThat(alive(grandchild)).isTrue();

    child.stop(Duration.ofSeconds(60)).get(15, TimeUnit.SECONDS);

    Await.until(DEADLINE, "grandchild gone", () -> !alive(grandchild));
  }

  @Test
  void aChildExitingOnItsOwnReportsItsCodeAndLastWords() throws Exception {
    ChildProcess child = start("sh", "-c", "echo 'cannot load model'; exit 3");

    assertThat(child.onExit().get(15, TimeUnit.SECONDS)).isEqualTo(3);
    assertThat(child.lastOutput()).isEqualTo("cannot load model");
    assertThat(child.stop(Duration.ofSeconds(1)).get(15, TimeUnit.SECONDS))
        .as("stop after exit changes nothing").isEqualTo(3);
  }

  @Test
  void aMissingProgramExitsWith127() throws Exception {
    ChildProcess child = start("/nonexistent/engine", "--port", "1");

    assertThat(child.onExit().get(15, TimeUnit.SECONDS)).isEqualTo(127);
    assertThat(child.lastOutput()).contains("/nonexistent/engine");
  }

  @Test
  void keepsOnlyTheLastLines() throws Exception {
    ChildProcess child = start("sh", "-c", "i=0; while [ $i -lt 50 ]; do echo line$i; "
        + "i=$((i + 1)); done");

    child.onExit().get(15, TimeUnit.SECONDS);

    List<String> tail = child.lastOutput().lines().toList();
    assertThat(tail).hasSize(ChildProcess.TAIL_LINES).endsWith("line49")
        .startsWith("line" + (50 - ChildProcess.TAIL_LINES));
  }

  @Test
  void longLinesAreCut() throws Exception {
    byte[] bytes = ("a".repeat(ChildProcess.MAX_LINE_BYTES + 100) + "\nshort\r\nlast")
        .getBytes(StandardCharsets.UTF_8);
    ChildProcess.LineReader reader =
        new ChildProcess.LineReader(new ByteArrayInputStream(bytes));

    assertThat(reader.next()).hasSize(ChildProcess.MAX_LINE_BYTES);
    assertThat(reader.next()).isEqualTo("short");
    assertThat(reader.next()).isEqualTo("last");
    assertThat(reader.next()).isNull();
  }

  /** The JVM that started the child is killed with kill -9: the child goes too. */
  @Test
  void theChildDiesWithItsJvm() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process jvm = new ProcessBuilder(java, "-Xmx64m", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), ChildProcessOrphanMain.class.getName())
        .redirectErrorStream(true).start();
    long pid;
    try {
      BufferedReader out = new BufferedReader(
          new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      while (line != null && !line.startsWith("child-pid ")) {
        line = out.readLine();
      }
      assertThat(line).as("the JVM printed its child's PID").isNotNull();
      pid = Long.parseLong(line.substring("child-pid ".length()).strip());
      assertThat(alive(pid)).isTrue();
    } finally {
      jvm.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
    }

    Await.until(DEADLINE, "sleep " + pid + " gone after its JVM's kill -9", () -> !alive(pid));
  }
}
