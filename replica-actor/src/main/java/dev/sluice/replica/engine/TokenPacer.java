package dev.sluice.replica.engine;

import java.time.Duration;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * Paces a simulated engine's tokens: token {@code i} goes out no earlier than {@code first + i ×
 * interval} after the stream's first pull (its admission), on an {@link EngineClock}. The
 * schedule is absolute, as a real engine's is: it generates whether or not the client reads, so
 * a token held back by a slow reader does not push the later ones back; they follow as soon as
 * they are due (no burst beyond what is due, unlike a token-bucket throttle, which let the first
 * few tokens out at once).
 */
final class TokenPacer<T> extends GraphStage<FlowShape<T, T>> {

  private final Inlet<T> in = Inlet.create("TokenPacer.in");
  private final Outlet<T> out = Outlet.create("TokenPacer.out");
  private final FlowShape<T, T> shape = FlowShape.of(in, out);
  private final EngineClock clock;
  private final long firstNanos;
  private final long intervalNanos;

  TokenPacer(EngineClock clock, Duration first, Duration interval) {
    if (first.isNegative() || interval.isNegative()) {
      throw new IllegalArgumentException("negative pace: " + first + ", " + interval);
    }
    this.clock = clock;
    this.firstNanos = first.toNanos();
    this.intervalNanos = interval.toNanos();
  }

  @Override
  public FlowShape<T, T> shape() {
    return shape;
  }

  @Override
  public GraphStageLogic createLogic(Attributes attributes) {
    return new GraphStageLogic(shape) {
      private final AsyncCallback<T> due = createAsyncCallback(this::release);
      private boolean started;
      private long start;
      private long index;
      private boolean holding;
      private boolean finishing;

      {
        setHandler(in, new AbstractInHandler() {
          @Override
          public void onPush() {
            T token = grab(in);
            long deadline = start + firstNanos + index++ * intervalNanos;
            if (deadline - System.nanoTime() <= 0) {
              push(out, token);
            } else {
              holding = true;
              clock.at(deadline, () -> due.invoke(token));
            }
          }

          @Override
          public void onUpstreamFinish() {
            if (holding) {
              finishing = true;
            } else {
              completeStage();
            }
          }
        });
        setHandler(out, new AbstractOutHandler() {
          @Override
          public void onPull() {
            if (!started) {
              started = true;
              start = System.nanoTime();
            }
            pull(in);
          }
        });
      }

      private void release(T token) {
        holding = false;
        push(out, token);
        if (finishing) {
          completeStage();
        }
      }
    };
  }
}
