package dev.sluice.deploy;

import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.UpstreamFailure;
import dev.sluice.ingress.splice.Decision;
import dev.sluice.ingress.splice.SpliceDispatcher;
import dev.sluice.ingress.splice.SpliceRequest;
import dev.sluice.ingress.splice.SpliceServer;
import dev.sluice.ingress.splice.SpliceSettings;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A splice whose dispatcher dies of an {@link OutOfMemoryError} on every request, wired to the
 * node's real fatal handler: the process must exit, not keep a dead port open.
 */
public final class FatalLoopMain {

  private FatalLoopMain() {}

  public static void main(String[] args) throws Exception {
    SpliceDispatcher dying = new SpliceDispatcher() {
      @Override
      public Optional<Answer> screen(SpliceRequest head) {
        return Optional.empty();
      }

      @Override
      public CompletionStage<Decision> decide(SpliceRequest request) {
        throw new OutOfMemoryError("simulated: Java heap space");
      }

      @Override
      public CompletionStage<Decision> retry(SpliceRequest request, java.util.List<String> refused) {
        return decide(request);
      }

      @Override
      public Answer upstreamFailed(Decision.Forward target, SpliceRequest request,
          UpstreamFailure failure, String detail) {
        return Answer.text(502, "unused");
      }
    };
    SpliceServer.bind("127.0.0.1", Integer.parseInt(args[0]),
        SpliceSettings.forTests(4096, 1024, Duration.ofSeconds(5)), dying,
        FatalErrors::exitNode);
    System.out.println("ready");
    Thread.sleep(Long.MAX_VALUE);
  }
}
