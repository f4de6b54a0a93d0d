package dev.sluice.router;

import dev.sluice.core.serialization.ClusterMessage;
import java.util.Objects;
import java.util.Optional;

/**
 * A request to route, as the ingress or {@code /internal/route} knows it before any byte goes to a
 * replica.
 *
 * @param model the requested model if the body was read, else empty (the app's only deployment)
 */
public record RouteRequest(String requestId, Optional<String> sessionId, Optional<String> model)
    implements ClusterMessage {

  public RouteRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(model, "model");
  }
}
