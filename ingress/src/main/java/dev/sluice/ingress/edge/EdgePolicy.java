package dev.sluice.ingress.edge;

import dev.sluice.core.http.ClusterToken;
import dev.sluice.core.http.ContentCoding;
import dev.sluice.core.http.RequestIds;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.core.openai.ForwardedBody;
import dev.sluice.core.openai.ModelField;
import dev.sluice.router.RouteRequest;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * What every data path does the same way with a request before and around routing: its id, its
 * session, the router's time budget, the part of the body the router sees, who may send it, and
 * what it carries to the replica. One instance per ingress, built from its settings.
 */
public final class EdgePolicy {

  /** Paths answered without an API key: health probes. */
  private static final String HEALTH = "/-/healthz";

  private final String sessionHeader;
  private final Duration routeTimeout;
  private final long routeBudgetMillis;
  private final boolean forwardBody;
  private final int forwardBodyLimit;
  private final ApiKeys apiKeys;
  private final List<HeaderField> upstreamHeaders;

  public EdgePolicy(String sessionHeader, Duration routeTimeout, boolean forwardBody,
      int forwardBodyLimit, ApiKeys apiKeys, ClusterToken clusterToken) {
    this.sessionHeader = Objects.requireNonNull(sessionHeader, "sessionHeader");
    this.routeTimeout = Objects.requireNonNull(routeTimeout, "routeTimeout");
    // The router must answer (even "capacity exhausted") before this ingress gives up on it.
    this.routeBudgetMillis = Math.max(1, routeTimeout.toMillis() * 9 / 10);
    this.forwardBody = forwardBody;
    this.forwardBodyLimit = forwardBodyLimit;
    this.apiKeys = Objects.requireNonNull(apiKeys, "apiKeys");
    this.upstreamHeaders = clusterToken.authorization()
        .map(value -> List.of(new HeaderField("authorization", value)))
        .orElse(List.of());
  }

  /** The id a request gets: the client's {@code x-request-id} if safe, else a new one. */
  public String requestId(String sent) {
    return RequestIds.accept(sent);
  }

  /**
   * The session id: the first header named like the configured session header (case-insensitive,
   * {@code -} and {@code _} alike), whatever the header type of the server at hand.
   */
  public <H> Optional<String> sessionId(Iterable<H> headers, Function<H, String> name,
      Function<H, String> value) {
    for (H header : headers) {
      if (SluiceHeaders.sameHeader(sessionHeader, name.apply(header))) {
        return Optional.of(value.apply(header));
      }
    }
    return Optional.empty();
  }

  /** How long this ingress waits for the router's pick. */
  public Duration routeTimeout() {
    return routeTimeout;
  }

  /** The budget the router gets to answer within (a little less than the route timeout). */
  public long routeBudgetMillis() {
    return routeBudgetMillis;
  }

  /**
   * What the router is asked, given what the ingress read of the request. The body goes along
   * (up to forward-body-limit) when body forwarding is on, or when the application's routing
   * reads the prompt ({@code promptRouted}: prefix-cache-affinity), which without it would
   * silently route every request as if it had none.
   */
  public RouteRequest routeRequest(String requestId, Optional<String> session, byte[] body,
      boolean promptRouted) {
    Optional<ForwardedBody> forwarded = forwardBody || promptRouted
        ? Optional.of(ForwardedBody.cut(body, forwardBodyLimit)) : Optional.empty();
    return new RouteRequest(requestId, session, forwarded, routeBudgetMillis, List.of(),
        ModelField.find(body));
  }

  /**
   * The answer for a request that may not pass ({@code 401} in the OpenAI shape), or empty. Only
   * health probes pass without a key when keys are configured.
   */
  public Optional<Answer> authenticate(String path, String authorization, String requestId) {
    if (!apiKeys.enabled() || path.equals(HEALTH) || apiKeys.accepts(authorization)) {
      return Optional.empty();
    }
    return Optional.of(Answers.error(ApiKeys.refusal(authorization == null), requestId)
        .with("www-authenticate", "Bearer"));
  }

  /**
   * 415 for a request whose body comes in a content coding ({@link ContentCoding}), checked on
   * the head before the body is read.
   */
  public <H> Optional<Answer> refuseContentCoding(Iterable<H> headers, Function<H, String> name,
      Function<H, String> value, String requestId) {
    return ContentCoding.refusal(headers, name, value).map(refusal -> Answers.error(refusal,
        requestId).with(ContentCoding.ACCEPT_HEADER, ContentCoding.IDENTITY));
  }

  public boolean requiresApiKey() {
    return apiKeys.enabled();
  }

  /** Fields the ingress adds to every request it sends to a replica (the cluster token). */
  public List<HeaderField> upstreamHeaders() {
    return upstreamHeaders;
  }
}
