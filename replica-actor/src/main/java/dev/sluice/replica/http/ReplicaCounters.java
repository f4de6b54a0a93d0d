package dev.sluice.replica.http;

import java.util.concurrent.atomic.LongAdder;

/** Counters the replica endpoint keeps about itself (exposed on {@code GET /-/stats}). */
public final class ReplicaCounters {
  /** TCP connections accepted. A proxy that reuses connections keeps this low. */
  public final LongAdder connections = new LongAdder();
  /**
   * HTTP requests received on every route but the probes ({@code GET /-/healthz}, {@code GET
   * /-/stats}): what a proxy in front sent, message by message.
   */
  public final LongAdder requests = new LongAdder();
  /** Streaming answers started. */
  public final LongAdder streams = new LongAdder();
  /** Requests refused with replica_at_capacity. */
  public final LongAdder rejected = new LongAdder();
}
