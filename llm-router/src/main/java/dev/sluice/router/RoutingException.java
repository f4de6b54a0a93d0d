package dev.sluice.router;

import dev.sluice.core.http.ServeReason;
import java.util.Objects;

/** Routing failed: the router answered with a reason, or did not answer in time. */
public final class RoutingException extends RuntimeException {

  private final ServeReason reason;

  public RoutingException(ServeReason reason, String detail) {
    super(reason.value() + ": " + detail, null, false, false);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  public ServeReason reason() {
    return reason;
  }
}
