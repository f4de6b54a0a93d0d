package dev.sluice.core.http;

/**
 * Values of the {@code X-Serve-Reason} header: why a request was refused. A closed set so that
 * dashboards and alerts can rely on it. All but the two model reasons are fail-closed 503s; those
 * two are the client's mistake and answered in the OpenAI error shape (404 and 400).
 */
public enum ServeReason {
  /** The router gave no answer in time, or no router singleton is running. */
  ROUTER_UNREACHABLE("router_unreachable"),
  /** The router answered with an error. */
  ROUTER_NON_200("router_non_200"),
  /** The deployment has no replica that can take the request. */
  NO_REPLICAS("no_replicas"),
  /** The router chose a replica this ingress does not know yet. */
  UNKNOWN_REPLICA_ID("unknown_replica_id"),
  /** The chosen replica refused the connection before any byte was sent. */
  REPLICA_UNREACHABLE("replica_unreachable"),
  /** The replica has no free slot ({@code max_ongoing_requests} reached). */
  REPLICA_AT_CAPACITY("replica_at_capacity"),
  /** The replica is draining and takes no new requests. */
  REPLICA_DRAINING("replica_draining"),
  /** The CapacityQueue had no spare capacity for the request within its routing budget. */
  CAPACITY_EXHAUSTED("capacity_exhausted"),
  /** No deployment serves the model the request names: 404 {@code model_not_found}, not 503. */
  MODEL_NOT_FOUND("model_not_found"),
  /** Several deployments and the request names no model: 400 naming {@code model}. */
  MODEL_REQUIRED("model_required");

  private final String value;

  ServeReason(String value) {
    this.value = value;
  }

  /** The header value, e.g. {@code no_replicas}. */
  public String value() {
    return value;
  }

  @Override
  public String toString() {
    return value;
  }
}
