package dev.sluice.replica.engine;

import java.util.concurrent.CompletionStage;
import java.util.function.DoubleConsumer;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * An engine whose time to first token is observed: from the moment a generation starts (its
 * source is materialized, i.e. the request holds a slot) to its first token, in seconds. Both
 * data paths and every engine kind go through it.
 */
public final class MeteredEngine implements Engine {

  private final Engine delegate;
  private final DoubleConsumer ttftSeconds;

  public MeteredEngine(Engine delegate, DoubleConsumer ttftSeconds) {
    this.delegate = delegate;
    this.ttftSeconds = ttftSeconds;
  }

  /** The engine underneath (fault injection reaches the simulated engine through it). */
  public Engine delegate() {
    return delegate;
  }

  @Override
  public Source<String, NotUsed> generate(GenerationRequest request) {
    return Source.<String, NotUsed>fromMaterializer((materializer, attributes) -> {
      long start = System.nanoTime();
      boolean[] first = {true};
      return delegate.generate(request).map(token -> {
        if (first[0]) {
          first[0] = false;
          ttftSeconds.accept((System.nanoTime() - start) / 1e9);
        }
        return token;
      });
    }).mapMaterializedValue(future -> NotUsed.getInstance());
  }

  @Override
  public CompletionStage<Done> start() {
    return delegate.start();
  }

  @Override
  public EngineStats stats() {
    return delegate.stats();
  }

  @Override
  public CompletionStage<Boolean> healthy() {
    return delegate.healthy();
  }

  @Override
  public CompletionStage<Done> stop() {
    return delegate.stop();
  }

  @Override
  public int dataPort() {
    return delegate.dataPort();
  }

  @Override
  public CompletionStage<Integer> exited() {
    return delegate.exited();
  }
}
