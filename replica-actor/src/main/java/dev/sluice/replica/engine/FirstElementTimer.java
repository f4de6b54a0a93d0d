package dev.sluice.replica.engine;

import java.util.function.LongConsumer;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * Passes a stream through and reports, once, the nanoseconds from its start (the stage's start,
 * i.e. the stream's materialization) to its first element. A stage of the stream itself: unlike
 * {@code Source.fromMaterializer}, it materializes no nested stream per request.
 */
final class FirstElementTimer<T> extends GraphStage<FlowShape<T, T>> {

  private final Inlet<T> in = Inlet.create("FirstElementTimer.in");
  private final Outlet<T> out = Outlet.create("FirstElementTimer.out");
  private final FlowShape<T, T> shape = FlowShape.of(in, out);
  private final LongConsumer firstAfterNanos;

  FirstElementTimer(LongConsumer firstAfterNanos) {
    this.firstAfterNanos = firstAfterNanos;
  }

  @Override
  public FlowShape<T, T> shape() {
    return shape;
  }

  @Override
  public GraphStageLogic createLogic(Attributes attributes) {
    return new GraphStageLogic(shape) {
      private long start;
      private boolean timed;

      {
        setHandler(in, new AbstractInHandler() {
          @Override
          public void onPush() {
            if (!timed) {
              timed = true;
              firstAfterNanos.accept(System.nanoTime() - start);
            }
            push(out, grab(in));
          }
        });
        setHandler(out, new AbstractOutHandler() {
          @Override
          public void onPull() {
            pull(in);
          }
        });
      }

      @Override
      public void preStart() {
        start = System.nanoTime();
      }
    };
  }
}
