package dev.sluice.router.spi;

import java.util.Objects;
import java.util.Optional;

/**
 * What a policy may know about the request it routes.
 *
 * @param sessionId the session header's value, if the client sent one
 * @param model the requested model, if the body was forwarded and named one
 * @param prompt the prompt text, if the body was forwarded whole and readable (the ingress's
 *     {@code forward-body = on}, or a policy that {@link ReadsPrompt}); a cut or unparsable body
 *     gives none ("no routing key")
 */
public record PendingRequest(
    String requestId, Optional<String> sessionId, Optional<String> model, Optional<String> prompt) {

  public PendingRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(prompt, "prompt");
  }

  /** A request known only by its id (no session, no body). */
  public static PendingRequest of(String requestId) {
    return new PendingRequest(requestId, Optional.empty(), Optional.empty(), Optional.empty());
  }
}
