package dev.sluice.replica.engine;

import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * A token generator behind a replica. {@link #generate} returns a cold {@link Source} of output
 * tokens; cancelling it aborts the engine request (no generation continues for nobody).
 */
public interface Engine {

  /** Starts the engine (load the model, launch the process); completes when it can generate. */
  CompletionStage<Done> start();

  /** The tokens of one request, in order. The source completes after the last token. */
  Source<String, NotUsed> generate(GenerationRequest request);

  /** Current engine statistics. */
  EngineStats stats();

  /**
   * Whether the engine can serve: completes with true or false, or never (a hung engine; the
   * caller's health-check timeout decides then).
   */
  default CompletionStage<Boolean> healthy() {
    return java.util.concurrent.CompletableFuture.completedFuture(true);
  }

  /** The GPUs its server holds now ({@code CUDA_VISIBLE_DEVICES}), none for most engines. */
  default java.util.List<String> gpus() {
    return java.util.List.of();
  }

  /** Stops the engine; idempotent. */
  CompletionStage<Done> stop();

  /**
   * The port of the server this engine runs on the replica's host, where an ingress sends
   * completions straight to it ({@code openai-process}); 0 = none, completions go to the
   * replica's own endpoint.
   */
  default int dataPort() {
    return 0;
  }

  /**
   * Completes with the exit code when the engine's process ends, whatever the reason; never for
   * an engine inside this JVM.
   */
  default CompletionStage<Integer> exited() {
    return new java.util.concurrent.CompletableFuture<>();
  }
}
