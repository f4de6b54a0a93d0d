package dev.sluice.core.http;

/** Header names Sluice reads or writes. All lowercase; HTTP header names are case-insensitive. */
public final class SluiceHeaders {

  /** The replica the router picked, added by the ingress to every routed response. */
  public static final String REPLICA = "x-sluice-replica";
  /** The replica that actually produced a response, added by the replica endpoint itself. */
  public static final String SERVED_BY = "x-sluice-served-by";
  /** Request id: taken from the client if sent, else generated; echoed on the response. */
  public static final String REQUEST_ID = "x-request-id";
  /** Why a request was refused (fail-closed answers and replica rejections). */
  public static final String SERVE_REASON = "x-serve-reason";
  /** Default session header for affinity routing (configurable). */
  public static final String DEFAULT_SESSION = "x-session-id";
  /** {@code <sent>/<total>} bytes when a forwarded body was cut for the router. */
  public static final String BODY_TRUNCATED = "x-body-truncated";

  /**
   * On {@code POST /internal/route}: replica ids (comma-separated) the caller cannot use, such as
   * replicas an external data plane does not know yet; the router chooses among the others.
   */
  public static final String EXCLUDE = "x-sluice-exclude";

  /**
   * On {@code POST /internal/route}: the application whose route prefix took the request's path;
   * the router chooses among its deployments only.
   */
  public static final String APP = "x-sluice-app";

  /**
   * On {@code POST /internal/route}: the request body's {@code model}, read by the data plane
   * (as the ingress reads it) when it does not forward the body.
   */
  public static final String MODEL = "x-sluice-model";

  /** A slot reservation token: the replica uses the reserved slot instead of taking another. */
  public static final String SLOT_TOKEN = "x-sluice-slot-token";

  private SluiceHeaders() {}

  /**
   * Whether {@code candidate} names the same header as {@code configured}: case-insensitive, with
   * {@code -} and {@code _} treated alike (DESIGN.md §5).
   */
  public static boolean sameHeader(String configured, String candidate) {
    if (configured.length() != candidate.length()) {
      return false;
    }
    for (int i = 0; i < configured.length(); i++) {
      char a = normalize(configured.charAt(i));
      char b = normalize(candidate.charAt(i));
      if (a != b) {
        return false;
      }
    }
    return true;
  }

  private static char normalize(char c) {
    return c == '_' ? '-' : Character.toLowerCase(c);
  }
}
