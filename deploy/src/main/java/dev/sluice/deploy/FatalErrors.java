package dev.sluice.deploy;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node does when one of its threads dies of an {@link Error} (out of memory, say) that
 * leaves a component unusable: it exits with {@link #EXIT_CODE}, so a supervisor (systemd,
 * Kubernetes) restarts it, rather than keep a live-looking node behind a dead port. The JVM's
 * shutdown hooks run Pekko's coordinated shutdown first; if that hangs, the JVM is halted.
 */
final class FatalErrors {

  /** EX_SOFTWARE of sysexits.h: an internal software error. */
  static final int EXIT_CODE = 70;
  private static final long HALT_AFTER_MILLIS = 15_000;
  private static final Logger log = LoggerFactory.getLogger(FatalErrors.class);

  private FatalErrors() {}

  static void exitNode(Throwable error) {
    try {
      log.error("Fatal error in the ingress's splice: the node exits ({})", EXIT_CODE, error);
    } catch (Throwable ignored) {
      // logging may fail too when memory is gone
    }
    Thread halt = new Thread(() -> {
      try {
        Thread.sleep(HALT_AFTER_MILLIS);
      } catch (InterruptedException ignored) {
        // halting anyway
      }
      Runtime.getRuntime().halt(EXIT_CODE);
    }, "sluice-fatal-halt");
    halt.setDaemon(true);
    halt.start();
    Thread exit = new Thread(() -> System.exit(EXIT_CODE), "sluice-fatal-exit");
    exit.start();
  }
}
