package dev.sluice.ingress.edge;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.http.SluiceHeaders;

/** The ingress's own answers, the same on every data path. */
public final class Answers {

  /** The reason of a fail-closed answer in words (which deployment, what timed out). */
  public static final String DETAIL_HEADER = "x-sluice-detail";

  private Answers() {}

  /** An error in the OpenAI shape. */
  public static Answer error(ApiError error, String requestId) {
    return Answer.json(error.status(), error.toJson())
        .with(SluiceHeaders.REQUEST_ID, requestId);
  }

  public static Answer error(ApiError.Code code, String message, String requestId) {
    return error(new ApiError(code, message, null), requestId);
  }

  /**
   * Routing failed: 503, {@code text/plain}, {@code Ingress request router failed: <reason>} and
   * {@code X-Serve-Reason}. Never a silent detour down a path the policy did not choose.
   */
  public static Answer failClosed(ServeReason reason, String requestId, String detail) {
    return Answer.text(503, "Ingress request router failed: " + reason.value())
        .with(SluiceHeaders.SERVE_REASON, reason.value())
        .with(SluiceHeaders.REQUEST_ID, requestId)
        .with(DETAIL_HEADER, detail);
  }

  /**
   * The router found nothing to route to. The request's own mistakes are answered in the OpenAI
   * shape: a model no deployment serves is 404 {@code model_not_found}, a missing model where
   * several are served is 400 naming {@code model}; everything else fails closed (503).
   */
  public static Answer notRouted(ServeReason reason, String requestId, String detail) {
    return switch (reason) {
      case MODEL_NOT_FOUND -> error(new ApiError(ApiError.Code.MODEL_NOT_FOUND, detail, "model"),
          requestId).with(SluiceHeaders.SERVE_REASON, reason.value());
      case MODEL_REQUIRED -> error(ApiError.invalid("model", detail), requestId)
          .with(SluiceHeaders.SERVE_REASON, reason.value());
      default -> failClosed(reason, requestId, detail);
    };
  }

  /**
   * A chosen replica failed before its answer started: refused the connection (503
   * {@code replica_unreachable}, fail closed: nothing was sent), failed (502) or stayed silent
   * (504).
   */
  public static Answer upstreamFailed(UpstreamFailure failure, String requestId,
      String replicaId, String detail) {
    return switch (failure) {
      case UNREACHABLE -> failClosed(ServeReason.REPLICA_UNREACHABLE, requestId,
          "replica " + replicaId + ": " + detail);
      case FAILED -> error(ApiError.Code.UPSTREAM_FAILED,
          "Replica " + replicaId + " failed: " + detail, requestId)
          .with(SluiceHeaders.REPLICA, replicaId);
      case TIMED_OUT -> error(ApiError.Code.UPSTREAM_TIMEOUT,
          "Replica " + replicaId + " did not answer: " + detail, requestId)
          .with(SluiceHeaders.REPLICA, replicaId);
    };
  }
}
