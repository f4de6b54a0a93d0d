package dev.sluice.ingress.observe;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * The request log's lines as a test sees them, captured around each test (register with
 * {@code @RegisterExtension}).
 */
final class RequestLogLines implements BeforeEachCallback, AfterEachCallback {

  private final Logger requests = (Logger) LoggerFactory.getLogger(RequestLog.LOGGER);
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private Level before;

  @Override
  public void beforeEach(ExtensionContext context) {
    before = requests.getLevel();
    requests.setLevel(Level.INFO);
    lines.start();
    requests.addAppender(lines);
  }

  /** The logger's level turned off, as an operator silences it (until the test ends). */
  void silence() {
    requests.setLevel(Level.OFF);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    requests.detachAppender(lines);
    requests.setLevel(before);
  }

  /** The lines written so far (a copy: the writer thread may be appending). */
  List<ILoggingEvent> list() {
    synchronized (lines) {  // the appender appends under its own lock
      return List.copyOf(lines.list);
    }
  }
}
