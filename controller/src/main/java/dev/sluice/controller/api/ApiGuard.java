package dev.sluice.controller.api;

import com.typesafe.config.Config;
import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.Bearer;
import dev.sluice.core.http.ClusterToken;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

/**
 * Who may call the controller API: with {@code sluice.controller.api.token} set, only that token
 * (the cluster token, which every ingress sends to replicas in plain HTTP, then opens nothing
 * here); otherwise the cluster token when one is set; otherwise anyone, and the API belongs on
 * loopback. Tokens are kept as digests, compared in constant time ({@link Bearer}), never logged.
 */
public final class ApiGuard {

  /** What opens the API. */
  public enum Credential {
    API_TOKEN, CLUSTER_TOKEN, NONE;

    /** As {@code GET /api/cluster} names it: {@code api-token}, {@code cluster-token}, none. */
    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  private static final String KEY = "sluice.controller.api.token";

  private final Credential credential;
  private final List<byte[]> apiTokenDigests;
  private final ClusterToken clusterToken;

  private ApiGuard(Credential credential, List<byte[]> apiTokenDigests,
      ClusterToken clusterToken) {
    this.credential = credential;
    this.apiTokenDigests = apiTokenDigests;
    this.clusterToken = clusterToken;
  }

  /**
   * The guard of this configuration. The API token may be several, separated by commas, each
   * taken: a new one beside the old while clients move to it.
   *
   * @throws IllegalArgumentException naming the key, for an API token that cannot travel in a
   *     header or that is the cluster token itself
   */
  public static ApiGuard fromConfig(Config root) {
    ClusterToken clusterToken = ClusterToken.fromConfig(root);
    String value = root.getString(KEY).strip();
    if (value.isEmpty()) {
      return new ApiGuard(clusterToken.enabled() ? Credential.CLUSTER_TOKEN : Credential.NONE,
          List.of(), clusterToken);
    }
    List<byte[]> digests = new ArrayList<>();
    for (String entry : value.split(",", -1)) {
      String token = entry.strip();
      if (!Bearer.isPrintable(token)) {
        throw new IllegalArgumentException(KEY + ": " + (token.isEmpty() ? "an empty token"
            : "has a character that cannot travel in a header") + " (expected: printable ASCII "
            + "without spaces or commas; several separated by commas)");
      }
      byte[] digest = Bearer.digest(token);
      if (clusterToken.enabled()
          && MessageDigest.isEqual(digest, Bearer.digest(clusterToken.secret()))) {
        throw new IllegalArgumentException(KEY + ": the same as sluice.core.cluster-token, "
            + "which every ingress sends with the requests it forwards (expected: a token of its "
            + "own)");
      }
      digests.add(digest);
    }
    return new ApiGuard(Credential.API_TOKEN, List.copyOf(digests), clusterToken);
  }

  public Credential credential() {
    return credential;
  }

  /** Whether a request with this {@code Authorization} value (null = absent) may pass. */
  public boolean admits(String authorization) {
    return switch (credential) {
      case API_TOKEN -> Bearer.matchesAny(apiTokenDigests, authorization);
      case CLUSTER_TOKEN -> clusterToken.admits(authorization);
      case NONE -> true;
    };
  }

  /** The OpenAI-shaped 401 body for a request this guard refuses, naming what it takes. */
  public String refusalJson() {
    return credential == Credential.API_TOKEN
        ? new ApiError(ApiError.Code.UNAUTHORIZED, "The controller API needs its token: send "
            + "Authorization: Bearer <" + KEY + ">", null).toJson()
        : ClusterToken.refusalJson();
  }

  @Override
  public String toString() {
    return "ApiGuard[" + credential + "]";
  }
}
