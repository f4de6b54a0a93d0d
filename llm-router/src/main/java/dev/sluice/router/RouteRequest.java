package dev.sluice.router;

import dev.sluice.core.openai.ForwardedBody;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.List;
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
 * @param excluded replica ids not to pick: the ingress asks again without the replica that
 *     refused its connection before any byte was sent
 * @param model the body's {@code model}, read by the ingress even when the body is not
 *     forwarded: the deployment serving it is the one routed to
 * @param app the application whose route prefix took the request's path: only its deployments
 *     are routed to; empty = any application's
 */
public record RouteRequest(String requestId, Optional<String> sessionId,
    Optional<ForwardedBody> body, long budgetMillis, List<String> excluded,
    Optional<String> model, Optional<String> app) implements ClusterMessage {

  public RouteRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(body, "body");
    excluded = List.copyOf(excluded);
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(app, "app");
  }

  public RouteRequest(String requestId, Optional<String> sessionId, Optional<ForwardedBody> body,
      long budgetMillis, List<String> excluded, Optional<String> model) {
    this(requestId, sessionId, body, budgetMillis, excluded, model, Optional.empty());
  }

  public RouteRequest(String requestId, Optional<String> sessionId, Optional<ForwardedBody> body,
      long budgetMillis, List<String> excluded) {
    this(requestId, sessionId, body, budgetMillis, excluded, Optional.empty());
  }

  public RouteRequest(String requestId, Optional<String> sessionId, Optional<ForwardedBody> body,
      long budgetMillis) {
    this(requestId, sessionId, body, budgetMillis, List.of());
  }

  public RouteRequest(String requestId, Optional<String> sessionId, Optional<ForwardedBody> body) {
    this(requestId, sessionId, body, 0);
  }

  public static RouteRequest of(String requestId, Optional<String> sessionId) {
    return new RouteRequest(requestId, sessionId, Optional.empty(), 0);
  }

  public RouteRequest withBudget(long millis) {
    return new RouteRequest(requestId, sessionId, body, millis, excluded, model, app);
  }

  /** The same request, routed by {@code model}. */
  public RouteRequest withModel(Optional<String> model) {
    return new RouteRequest(requestId, sessionId, body, budgetMillis, excluded, model, app);
  }

  /** The same request, routed among the deployments of {@code app} only. */
  public RouteRequest withApp(Optional<String> app) {
    return new RouteRequest(requestId, sessionId, body, budgetMillis, excluded, model, app);
  }

  /** The model to route by: the one the caller read, else the forwarded body's. */
  public Optional<String> routingModel() {
    return model.isPresent() ? model : body.flatMap(b -> b.routingKeys().model());
  }

  /** The same request, not to be sent to {@code replicaId} again. */
  public RouteRequest excluding(String replicaId) {
    return excluding(List.of(replicaId));
  }

  /** The same request, not to be sent to any of {@code replicaIds} again. */
  public RouteRequest excluding(List<String> replicaIds) {
    List<String> more = new java.util.ArrayList<>(excluded);
    more.addAll(replicaIds);
    return new RouteRequest(requestId, sessionId, body, budgetMillis, more, model, app);
  }
}
