package dev.sluice.ingress.splice;

import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.HttpResponse;

/** The control side of the splice: decides, per complete request, where it goes. */
public interface SpliceDispatcher {

  /** How a forwarded request failed before any byte of its answer reached the client. */
  enum UpstreamFailure {
    /** The replica's endpoint refused or did not accept the connection in time. */
    UNREACHABLE,
    /** The connection failed, or the replica answered with something that is not HTTP. */
    FAILED,
    /** No response head within the response timeout. */
    TIMED_OUT
  }

  CompletionStage<Decision> decide(SpliceRequest request);

  /** The answer (strict) for a forwarded request that failed before its response head. */
  HttpResponse upstreamFailed(Decision.Forward target, UpstreamFailure failure, String detail);
}
