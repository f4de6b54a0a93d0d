package dev.sluice.replica.engine;

import java.util.List;
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
  /** The histogram its statistics carry, as an engine's own; null for none. */
  private final TtftCounts exported;

  public MeteredEngine(Engine delegate, DoubleConsumer ttftSeconds) {
    this(delegate, ttftSeconds, null);
  }

  private MeteredEngine(Engine delegate, DoubleConsumer ttftSeconds, TtftCounts exported) {
    this.delegate = delegate;
    this.ttftSeconds = ttftSeconds;
    this.exported = exported;
  }

  /**
   * {@code delegate} counting its times to first token into {@code bounds}, carried in its
   * statistics as an engine's own histogram ({@code sluice engine-sim}, exporting it as vLLM
   * does).
   */
  public static MeteredEngine exporting(Engine delegate, List<Double> bounds) {
    TtftCounts counts = new TtftCounts(bounds);
    return new MeteredEngine(delegate, counts, counts);
  }

  /** The engine underneath (fault injection reaches the simulated engine through it). */
  public Engine delegate() {
    return delegate;
  }

  @Override
  public Source<String, NotUsed> generate(GenerationRequest request) {
    return delegate.generate(request)
        .via(new FirstElementTimer<>(nanos -> ttftSeconds.accept(nanos / 1e9)));
  }

  @Override
  public CompletionStage<Done> start() {
    return delegate.start();
  }

  @Override
  public EngineStats stats() {
    return exported == null ? delegate.stats() : delegate.stats().withTtft(exported.snapshot());
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
  public java.util.List<String> gpus() {
    return delegate.gpus();
  }

  @Override
  public CompletionStage<Integer> exited() {
    return delegate.exited();
  }
}
