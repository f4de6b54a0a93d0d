package dev.sluice.router.spi;

import java.util.Objects;
import java.util.Optional;

/**
 * What a policy may know about the request it routes.
 *
 * @param sessionId the session header's value, if the client sent one
 * @param model the requested model, if the body was forwarded and named one
 */
public record PendingRequest(String requestId, Optional<String> sessionId, Optional<String> model) {

  public PendingRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(model, "model");
  }
}
