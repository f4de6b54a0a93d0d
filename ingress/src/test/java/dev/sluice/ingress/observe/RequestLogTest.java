package dev.sluice.ingress.observe;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RequestLogTest {

  @RegisterExtension
  final RequestLogLines lines = new RequestLogLines();

  private static RequestLog.Entry entry(String id) {
    return new RequestLog.Entry(id, "direct", "/v1/completions", "r1", 200, null, "completed",
        0.1, 1.0, 2.0, 3, 40);
  }

  private int written() {
    return lines.list().size();
  }

  private static boolean within(long seconds, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    return true;
  }

  @Test
  void anIdleWriterSleepsAndTheNextEntryWakesIt() {
    AtomicInteger dropped = new AtomicInteger();
    RequestLog log = new RequestLog(false, 16, dropped::incrementAndGet);
    try {
      log.offer(entry("req-1"));
      assertThat(within(5, () -> written() == 1)).as("the first line").isTrue();
      assertThat(within(5, log::asleep)).as("asleep after a second of nothing").isTrue();

      log.offer(entry("req-2"));
      log.offer(entry("req-3"));

      // Written while the log is open: the entry woke the writer, closing did not flush it.
      assertThat(within(5, () -> written() == 3)).as("lines after the sleep").isTrue();
      assertThat(log.asleep()).isFalse();
    } finally {
      log.close();
    }
    assertThat(lines.list()).extracting(ILoggingEvent::getFormattedMessage)
        .allSatisfy(line -> assertThat(line).startsWith("request_id=req-"))
        .hasSize(3);
    assertThat(dropped).hasValue(0);
  }

  @Test
  void closingASleepingWriterEndsIt() {
    RequestLog log = new RequestLog(true, 16, () -> { });
    assertThat(within(5, log::asleep)).isTrue();
    log.close();
    assertThat(within(5, () -> !log.writerAlive())).isTrue();
  }
}
