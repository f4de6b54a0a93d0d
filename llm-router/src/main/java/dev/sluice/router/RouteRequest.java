package dev.sluice.router;

import dev.sluice.core.openai.ForwardedBody;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.Objects;
import java.util.Optional;

/**
 * A request to route, as the ingress or {@code /internal/route} knows it before any byte goes to a
 * replica.
 *
 * @param body the forwarded body (body forwarding on), from which the router reads the model and
 *     the prompt; empty when the body is not read before routing
 * @param budgetMillis how long the caller will wait for the answer (waiting for capacity must end
 *     before); 0 = the router's default
 */
public record RouteRequest(String requestId, Optional<String> sessionId,
    Optional<ForwardedBody> body, long budgetMillis) implements ClusterMessage {

  public RouteRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(body, "body");
  }

  public RouteRequest(String requestId, Optional<String> sessionId, Optional<ForwardedBody> body) {
    this(requestId, sessionId, body, 0);
  }

  public static RouteRequest of(String requestId, Optional<String> sessionId) {
    return new RouteRequest(requestId, sessionId, Optional.empty(), 0);
  }

  public RouteRequest withBudget(long millis) {
    return new RouteRequest(requestId, sessionId, body, millis);
  }
}
