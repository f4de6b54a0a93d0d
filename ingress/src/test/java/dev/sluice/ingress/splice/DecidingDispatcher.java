package dev.sluice.ingress.splice;

import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.UpstreamFailure;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** A test dispatcher that only decides: no screening, a retry decides again, failures are 502. */
abstract class DecidingDispatcher implements SpliceDispatcher {
  @Override
  public Optional<Answer> screen(SpliceRequest head) {
    return Optional.empty();
  }

  @Override
  public CompletionStage<Decision> retry(SpliceRequest request, java.util.List<String> refused) {
    return decide(request);
  }

  @Override
  public Answer upstreamFailed(Decision.Forward target, SpliceRequest request,
      UpstreamFailure failure, String detail) {
    return Answer.text(502, failure.name());
  }
}
