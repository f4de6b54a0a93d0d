package dev.sluice.core;

import java.util.List;
import java.util.Objects;

/**
 * What every router and ingress knows about one replica: where its own HTTP endpoint listens (the
 * "backend HTTP endpoint metadata" of Ray 2.56), its capacity, state and the models it serves.
 *
 * @param nodeAddress the Pekko address of the node hosting the replica
 * @param host the host the replica's HTTP endpoint is reachable on
 * @param port the port of the replica's HTTP endpoint
 * @param actor the replica actor's serialized ref (for the relayed path), or empty
 * @param dataPort where an ingress sends completions on {@code host}: the port of an external
 *     engine the replica supervises ({@code openai-process}), so that tokens flow from the
 *     engine to the ingress without a hop through the replica; 0 = the endpoint's {@code port}
 */
public record ReplicaInfo(
    ReplicaId id,
    String nodeAddress,
    String host,
    int port,
    int maxOngoingRequests,
    ReplicaState state,
    List<String> modelIds,
    String actor,
    int dataPort) {

  public ReplicaInfo(ReplicaId id, String nodeAddress, String host, int port,
      int maxOngoingRequests, ReplicaState state, List<String> modelIds) {
    this(id, nodeAddress, host, port, maxOngoingRequests, state, modelIds, "");
  }

  public ReplicaInfo(ReplicaId id, String nodeAddress, String host, int port,
      int maxOngoingRequests, ReplicaState state, List<String> modelIds, String actor) {
    this(id, nodeAddress, host, port, maxOngoingRequests, state, modelIds, actor, 0);
  }

  public ReplicaInfo {
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(nodeAddress, "nodeAddress");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(state, "state");
    modelIds = List.copyOf(modelIds);
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
    }
    if (dataPort < 0 || dataPort > 65535) {
      throw new IllegalArgumentException("dataPort: " + dataPort + " (expected: 0..65535)");
    }
    if (maxOngoingRequests < 1) {
      throw new IllegalArgumentException(
          "max_ongoing_requests: " + maxOngoingRequests + " (expected: >= 1)");
    }
  }

  public ReplicaInfo withState(ReplicaState newState) {
    return new ReplicaInfo(id, nodeAddress, host, port, maxOngoingRequests, newState, modelIds,
        actor, dataPort);
  }

  /** The port completions go to: an external engine's, else the replica endpoint's. */
  public int completionPort() {
    return dataPort > 0 ? dataPort : port;
  }

  /** {@code host:port} of the replica's endpoint. */
  public String authority() {
    return host + ":" + port;
  }
}
