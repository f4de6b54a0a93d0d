package dev.sluice.deploy;

import dev.sluice.bench.ServerCpu;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The CPU time of named groups of processes, as the OS counts it ({@link
 * ProcessHandle.Info#totalCpuDuration}: user and system time, every thread that ever ran
 * included), for {@code sluice bench compare}'s CPU per delivered token. A group's processes are
 * looked up at each sample (HAProxy's workers change on a reload); one that has ended counts
 * with what it had used when last seen.
 */
final class ProcessCpu implements ServerCpu {

  private final Map<String, Supplier<Stream<ProcessHandle>>> groups;
  private final Map<Long, Long> lastSeenNanos = new HashMap<>();
  private final Map<String, Set<Long>> members = new HashMap<>();

  /** @param groups each group's processes, by the name the report gives it, in report order */
  ProcessCpu(Map<String, Supplier<Stream<ProcessHandle>>> groups) {
    this.groups = new LinkedHashMap<>(groups);
  }

  @Override
  public synchronized Map<String, Long> sample() {
    Map<String, Long> used = new LinkedHashMap<>();
    groups.forEach((name, processes) -> {
      Set<Long> seen = members.computeIfAbsent(name, n -> new HashSet<>());
      try (Stream<ProcessHandle> live = processes.get()) {
        live.forEach(process -> process.info().totalCpuDuration().ifPresent(cpu -> {
          lastSeenNanos.merge(process.pid(), cpu.toNanos(), Math::max);
          seen.add(process.pid());
        }));
      }
      used.put(name, seen.stream().mapToLong(pid -> lastSeenNanos.getOrDefault(pid, 0L)).sum());
    });
    return used;
  }
}
