package dev.sluice.core.process;

import java.time.Duration;
import java.util.List;

/**
 * Run by {@link ChildProcessTest} in a JVM of its own, which the test kills with
 * {@code kill -9}: starts {@code sleep 300} as a {@link ChildProcess}, prints its PID and waits.
 */
public final class ChildProcessOrphanMain {

  private ChildProcessOrphanMain() {}

  public static void main(String[] args) throws Exception {
    ChildProcess child = ChildProcess.builder(List.of("sleep", "300"))
        .orphanGrace(Duration.ofSeconds(5))
        .start();
    System.out.println("child-pid " + child.pid());
    System.out.flush();
    Thread.sleep(Duration.ofMinutes(5).toMillis());
  }
}
