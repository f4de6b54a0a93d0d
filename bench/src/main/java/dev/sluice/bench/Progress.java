package dev.sluice.bench;

import java.io.PrintStream;
import java.util.Locale;

/** A one-line progress bar on stderr, drawn only when stderr is a terminal. */
public final class Progress {

  private final PrintStream err;
  private final boolean enabled;
  private String label = "";

  public Progress(PrintStream err, boolean enabled) {
    this.err = err;
    this.enabled = enabled;
  }

  /** Draws on a terminal, stays silent when output is redirected (CI, pipes). */
  public static Progress onTerminal() {
    return new Progress(System.err, System.console() != null);
  }

  public static Progress none() {
    return new Progress(System.err, false);
  }

  public void label(String text) {
    this.label = text;
  }

  public void update(long done, long total, double seconds) {
    if (!enabled) {
      return;
    }
    int width = 30;
    int filled = total <= 0 ? 0 : (int) Math.min(width, done * width / total);
    err.printf(Locale.ROOT, "\r%s [%s%s] %d/%d %.1fs ", label, "#".repeat(filled),
        " ".repeat(width - filled), done, total, seconds);
    err.flush();
  }

  public void done() {
    if (enabled) {
      err.print("\r" + " ".repeat(100) + "\r");
      err.flush();
    }
  }
}
