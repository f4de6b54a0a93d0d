package dev.sluice.replica.http;

import java.time.Duration;
import java.util.Objects;

/**
 * What one replica endpoint serves and its limits.
 *
 * @param unconsumedResponseTimeout how long a streaming answer may wait to be rendered before its
 *     slot is freed (the client left before the first byte)
 * @param reservationTimeout an unconsumed slot reservation is released after this long
 */
public record ReplicaEndpointSettings(
    String replicaId,
    String modelId,
    int maxOngoingRequests,
    int defaultMaxTokens,
    int maxModelLen,
    long maxRequestBytes,
    Duration bodyTimeout,
    Duration unconsumedResponseTimeout,
    Duration reservationTimeout) {

  public ReplicaEndpointSettings {
    Objects.requireNonNull(reservationTimeout, "reservationTimeout");
    Objects.requireNonNull(replicaId, "replicaId");
    Objects.requireNonNull(modelId, "modelId");
    Objects.requireNonNull(bodyTimeout, "bodyTimeout");
    Objects.requireNonNull(unconsumedResponseTimeout, "unconsumedResponseTimeout");
  }
}
