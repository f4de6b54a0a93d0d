package dev.sluice.ingress;

import dev.sluice.core.http.ApiError;
import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.Answers;
import dev.sluice.ingress.edge.EdgePolicy;
import dev.sluice.ingress.edge.HeaderField;
import dev.sluice.ingress.edge.UpstreamFailure;
import dev.sluice.ingress.splice.Decision;
import dev.sluice.ingress.splice.SpliceDispatcher;
import dev.sluice.ingress.splice.SpliceRequest;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The splice's decisions on the relayed path ({@code direct-streaming = off}, and the
 * {@code relayed-port}). Pekko HTTP's request parser is lenient where two parsers can disagree
 * (a bare LF ends a line, obs-fold, bytes no field may hold): at the edge, it would let a client
 * smuggle a second request past a proxy in front. So the splice's strict reader is the relayed
 * path's front door too, and the Pekko HTTP server behind it listens on loopback only. A
 * completion goes there in the splice's own framing (its body read whole, one Content-Length,
 * the client's credentials passed on for that server to check again); that server routes it
 * through the replica actor and names the replica in its answer. Everything else is answered
 * here, as on the direct path.
 */
final class RelayedFront implements SpliceDispatcher {

  private final String host;
  private final int port;
  private final LocalRoutes local;
  private final EdgePolicy edge;

  /** Completions go to the relayed path's Pekko HTTP server at {@code host:port}. */
  RelayedFront(String host, int port, LocalRoutes local, EdgePolicy edge) {
    this.host = host;
    this.port = port;
    this.local = local;
    this.edge = edge;
  }

  @Override
  public Optional<Answer> screen(SpliceRequest head) {
    return SpliceRouting.screen(edge, head);
  }

  @Override
  public CompletionStage<Decision> decide(SpliceRequest request) {
    if (SpliceRouting.completionTarget(local, request) == null) {
      return SpliceRouting.answeredHere(local, request);
    }
    String authorization = request.header("authorization");
    return CompletableFuture.completedFuture(Decision.Forward.relay(host, port,
        authorization == null ? List.of() : List.of(new HeaderField("authorization",
            authorization))));
  }

  @Override
  public CompletionStage<Decision> retry(SpliceRequest request, List<String> refused) {
    // Not reached: a relayed request is not offered elsewhere (there is one server behind).
    return CompletableFuture.completedFuture(new Decision.Respond(Answers.error(
        ApiError.Code.UNAVAILABLE, "The relayed path's server refused the request",
        request.requestId())));
  }

  @Override
  public Answer upstreamFailed(Decision.Forward target, SpliceRequest request,
      UpstreamFailure failure, String detail) {
    String message = "The relayed path's server on this node ";
    return Answers.error(switch (failure) {
      case UNREACHABLE -> ApiError.Code.UNAVAILABLE;
      case FAILED -> ApiError.Code.UPSTREAM_FAILED;
      case TIMED_OUT -> ApiError.Code.UPSTREAM_TIMEOUT;
    }, message + (failure == UpstreamFailure.TIMED_OUT ? "did not answer: " : "failed: ")
        + detail, request.requestId());
  }
}
