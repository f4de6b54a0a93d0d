package dev.sluice.ingress.splice;

import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.UpstreamFailure;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** The control side of the splice: decides, per request, whether and where it goes. */
public interface SpliceDispatcher {

  /**
   * Looks at a request as soon as its head is read, before any of its body is (the body of
   * {@code head} is empty): an answer refuses it (a missing API key, say), and a body it
   * announced is then never read.
   */
  Optional<Answer> screen(SpliceRequest head);

  /** Decides a complete request: answer it here, or forward it. */
  CompletionStage<Decision> decide(SpliceRequest request);

  /**
   * Decides again a request whose chosen replicas refused it before any byte was sent: forward it
   * elsewhere (never to one of {@code refused}, the replica ids in the order they refused, the
   * last the one just tried), or answer it.
   */
  CompletionStage<Decision> retry(SpliceRequest request, List<String> refused);

  /** The answer for a forwarded request that failed before its response head. */
  Answer upstreamFailed(Decision.Forward target, SpliceRequest request, UpstreamFailure failure,
      String detail);
}
