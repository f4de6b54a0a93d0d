package dev.sluice.replica.http;

import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * Passes a stream through and tells when it starts and ends, inside the stream: {@code onStart}
 * when it is materialized, {@code onEnd} as it ends in any way (completion, failure, cancellation
 * or the stage being stopped). On completion {@code onEnd} runs before the completion goes
 * downstream, so a replica's slot is free before the answer's last chunk is rendered: whoever
 * sees the answer end (the ingress, which then hands the capacity on) finds the slot released.
 * Pekko's {@code watchTermination} runs its callback on another thread, some time after.
 * {@code onEnd} runs once.
 */
final class StreamEnd<T> extends GraphStage<FlowShape<T, T>> {

  private final Inlet<T> in = Inlet.create("StreamEnd.in");
  private final Outlet<T> out = Outlet.create("StreamEnd.out");
  private final FlowShape<T, T> shape = FlowShape.of(in, out);
  private final Runnable onStart;
  private final Runnable onEnd;

  StreamEnd(Runnable onStart, Runnable onEnd) {
    this.onStart = onStart;
    this.onEnd = onEnd;
  }

  @Override
  public FlowShape<T, T> shape() {
    return shape;
  }

  @Override
  public GraphStageLogic createLogic(Attributes attributes) {
    return new GraphStageLogic(shape) {
      private boolean ended;

      private void end() {
        if (!ended) {
          ended = true;
          onEnd.run();
        }
      }

      {
        setHandler(in, new AbstractInHandler() {
          @Override
          public void onPush() {
            push(out, grab(in));
          }

          @Override
          public void onUpstreamFinish() {
            end();
            completeStage();
          }

          @Override
          public void onUpstreamFailure(Throwable failure) {
            end();
            failStage(failure);
          }
        });
        setHandler(out, new AbstractOutHandler() {
          @Override
          public void onPull() {
            pull(in);
          }

          @Override
          public void onDownstreamFinish(Throwable cause) {
            end();
            cancelStage(cause);
          }
        });
      }

      @Override
      public void preStart() {
        onStart.run();
      }

      @Override
      public void postStop() {
        end();
      }
    };
  }
}
