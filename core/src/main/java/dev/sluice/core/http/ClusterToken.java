package dev.sluice.core.http;

import com.typesafe.config.Config;
import java.util.List;
import java.util.Optional;

/**
 * The shared secret of a cluster's internal HTTP endpoints ({@code sluice.core.cluster-token},
 * env {@code SLUICE_CLUSTER_TOKEN}): the router's {@code /internal/route}, every route of a
 * replica's endpoint but {@code /-/healthz}, and the controller API. When set, callers send it as
 * {@code Authorization: Bearer <token>} and anything without it gets 401; the ingress sends it on
 * every request it forwards. Unset (the default), those endpoints trust their network: bind them
 * to an internal interface. The token itself is never logged or rendered.
 */
public final class ClusterToken {

  public static final ClusterToken NONE = new ClusterToken(null);

  private final String token;
  private final List<byte[]> digests;

  private ClusterToken(String token) {
    this.token = token;
    this.digests = token == null ? List.of() : List.of(Bearer.digest(token));
  }

  public static ClusterToken of(String token) {
    if (token == null || token.isBlank()) {
      return NONE;
    }
    String trimmed = token.strip();
    if (!Bearer.isPrintable(trimmed)) {
      throw new IllegalArgumentException("sluice.core.cluster-token: has a character that "
          + "cannot travel in a header (expected: printable ASCII without spaces)");
    }
    return new ClusterToken(trimmed);
  }

  public static ClusterToken fromConfig(Config root) {
    return of(root.getString("sluice.core.cluster-token"));
  }

  public boolean enabled() {
    return token != null;
  }

  /** Whether a request with this {@code Authorization} value (null = absent) may pass. */
  public boolean admits(String authorization) {
    return token == null || Bearer.matchesAny(digests, authorization);
  }

  /** The token of this actor system's configuration. */
  public static ClusterToken of(org.apache.pekko.actor.typed.ActorSystem<?> system) {
    return fromConfig(system.settings().config());
  }

  /** The {@code Authorization} value internal callers send, when a token is set. */
  public Optional<String> authorization() {
    return token == null ? Optional.empty() : Optional.of("Bearer " + token);
  }

  /** The token itself, or empty: for a process that sends it (HAProxy's config, mode 0600). */
  public String secret() {
    return token == null ? "" : token;
  }

  /** The OpenAI-shaped 401 body for a request without the token. */
  public static String refusalJson() {
    return new ApiError(ApiError.Code.UNAUTHORIZED, "This internal endpoint needs the cluster "
        + "token: send Authorization: Bearer <sluice.core.cluster-token>", null).toJson();
  }

  @Override
  public String toString() {
    return token == null ? "ClusterToken[none]" : "ClusterToken[set]";
  }
}
