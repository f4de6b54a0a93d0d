package dev.sluice.capacity;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * Settings of the CapacityQueue, read once from {@code sluice.capacity-queue}.
 *
 * @param tokenTtl a lease older than this is reclaimed by the reaper (which runs every half TTL)
 */
public record CapacityQueueSettings(Duration tokenTtl) {

  public static CapacityQueueSettings fromConfig(Config root) {
    Duration ttl = root.getDuration("sluice.capacity-queue.token-ttl");
    if (ttl.toMillis() < 2) {
      throw new IllegalArgumentException(
          "sluice.capacity-queue.token-ttl: " + ttl + " (expected: >= 2ms)");
    }
    return new CapacityQueueSettings(ttl);
  }
}
