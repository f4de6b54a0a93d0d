package dev.sluice.replica.http;

import java.time.Duration;
import java.util.Objects;

/**
 * What one replica endpoint serves and its limits.
 *
 * @param unconsumedResponseTimeout how long a streaming answer may wait to be rendered before its
 *     slot is freed (the client left before the first byte)
 */
public record ReplicaEndpointSettings(
    String replicaId,
    String modelId,
    int maxOngoingRequests,
    int defaultMaxTokens,
    int maxModelLen,
    long maxRequestBytes,
    Duration bodyTimeout,
    Duration unconsumedResponseTimeout) {

  public ReplicaEndpointSettings {
    Objects.requireNonNull(replicaId, "replicaId");
    Objects.requireNonNull(modelId, "modelId");
    Objects.requireNonNull(bodyTimeout, "bodyTimeout");
    Objects.requireNonNull(unconsumedResponseTimeout, "unconsumedResponseTimeout");
  }
}
