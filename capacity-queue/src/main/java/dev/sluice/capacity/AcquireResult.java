package dev.sluice.capacity;

import dev.sluice.core.serialization.ClusterMessage;
import java.util.Objects;

/** The answer to {@link CapacityQueue.Acquire}. */
public sealed interface AcquireResult extends ClusterMessage {

  /** A slot is leased. */
  record Granted(Lease lease) implements AcquireResult {
    public Granted {
      Objects.requireNonNull(lease, "lease");
    }
  }

  /** No replica had spare capacity within the acquire timeout. Not a fault: back off. */
  record Exhausted(String detail) implements AcquireResult {
    public Exhausted {
      Objects.requireNonNull(detail, "detail");
    }
  }
}
