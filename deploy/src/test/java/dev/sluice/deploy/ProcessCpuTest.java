package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class ProcessCpuTest {

  @Test
  void aGroupKeepsWhatAProcessThatEndedHadUsed() throws Exception {
    Process busy = new ProcessBuilder("sh", "-c",
        "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done").start();
    Map<String, Supplier<Stream<ProcessHandle>>> groups = new LinkedHashMap<>();
    groups.put("busy", () -> Stream.of(busy.toHandle()));
    ProcessCpu cpu = new ProcessCpu(groups);
    long seen = 0;
    while (busy.isAlive()) {
      seen = cpu.sample().get("busy");
      busy.waitFor(20, TimeUnit.MILLISECONDS);
    }
    assertThat(seen).as("CPU seen while it ran").isPositive();

    assertThat(cpu.sample().get("busy")).as("after its end").isEqualTo(seen);
  }

  @Test
  void groupsComeInTheirOrderAndAnEmptyOneCountsNothing() {
    Map<String, Supplier<Stream<ProcessHandle>>> groups = new LinkedHashMap<>();
    groups.put("this JVM", () -> Stream.of(ProcessHandle.current()));
    groups.put("nobody", Stream::empty);
    ProcessCpu cpu = new ProcessCpu(groups);

    Map<String, Long> first = cpu.sample();
    long spin = System.nanoTime() + 50_000_000L;
    long sum = 0;
    while (System.nanoTime() < spin) {
      sum += Long.numberOfTrailingZeros(System.nanoTime());
    }
    Map<String, Long> second = cpu.sample();

    assertThat(first.keySet()).containsExactly("this JVM", "nobody");
    assertThat(second.get("this JVM")).as("after %d spins", sum)
        .isGreaterThan(first.get("this JVM"));
    assertThat(second.get("nobody")).isZero();
  }
}
