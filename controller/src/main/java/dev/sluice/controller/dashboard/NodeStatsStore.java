package dev.sluice.controller.dashboard;

import dev.sluice.core.metrics.NodeStats;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The last {@link #KEPT} stats reports of every node, as the dashboard's topic subscriber
 * receives them. A node whose newest report is older than {@link #STALE_MILLIS} is left out (it
 * left, or stopped reporting). Thread-safe.
 */
final class NodeStatsStore {

  static final int KEPT = 32;
  static final long STALE_MILLIS = 5_000;

  /** A node's newest report and the oldest one kept within a window before it. */
  record Span(NodeStats earlier, NodeStats latest) {

    double seconds() {
      return (latest.atMillis() - earlier.atMillis()) / 1000.0;
    }
  }

  private final Map<String, Deque<NodeStats>> byNode = new HashMap<>();

  synchronized void add(NodeStats stats) {
    Deque<NodeStats> reports = byNode.computeIfAbsent(stats.node(), n -> new ArrayDeque<>());
    reports.addLast(stats);
    while (reports.size() > KEPT) {
      reports.removeFirst();
    }
  }

  /**
   * For every node reporting, its newest report and the newest one at least {@code windowMillis}
   * older (the oldest kept while there is none that old yet; the same report twice when it has
   * only one). A span at least as long as the window: reports come a little more than a second
   * apart, so "within the window" picked one interval fewer than the window holds, and a counter
   * that moves in a burst once a second then read up to half too low or too high.
   */
  synchronized List<Span> spans(long nowMillis, long windowMillis) {
    List<Span> spans = new ArrayList<>();
    byNode.values().removeIf(reports -> nowMillis - reports.getLast().atMillis() > STALE_MILLIS
        * 6);
    for (Deque<NodeStats> reports : byNode.values()) {
      NodeStats latest = reports.getLast();
      if (nowMillis - latest.atMillis() > STALE_MILLIS) {
        continue;
      }
      NodeStats earlier = reports.getFirst();
      for (NodeStats report : reports) {
        if (latest.atMillis() - report.atMillis() < windowMillis) {
          break;
        }
        earlier = report;
      }
      spans.add(new Span(earlier, latest));
    }
    return spans;
  }
}
