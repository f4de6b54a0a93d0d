package dev.sluice.controller;

import dev.sluice.core.config.AutoscalingConfig;
import java.util.Optional;

/**
 * Ray Serve's replica-queue-length autoscaling for one deployment: the desired count is the
 * running count times the ratio of the load per replica to {@code target_ongoing_requests},
 * that ratio smoothed toward 1 by the up- or downscale smoothing factor, rounded up and clamped
 * to [min, max]; it becomes the target only once a higher (lower) desired count has held for
 * {@code upscale_delay_s} ({@code downscale_delay_s}).
 */
final class Autoscaler {

  /** One applied decision, with its inputs, for the log and the status API. */
  record Decision(long atMillis, int from, int to, double totalLoad, int running,
      String reason) {}

  private final AutoscalingConfig config;
  private int target;
  private int desired;
  private long upSince = -1;
  private long downSince = -1;
  private Decision last;

  /** Starts at {@code current} (a running deployment switched to autoscaling) or initial. */
  Autoscaler(AutoscalingConfig config, int current) {
    this.config = config;
    this.target = Math.max(config.minReplicas(), Math.min(config.maxReplicas(), current));
    this.desired = target;
  }

  AutoscalingConfig config() {
    return config;
  }

  int target() {
    return target;
  }

  /** The count the load asks for now (before the delays). */
  int desired() {
    return desired;
  }

  Optional<Decision> lastDecision() {
    return Optional.ofNullable(last);
  }

  /**
   * Looks at the load: {@code totalLoad} (ongoing plus queued, averaged over the look-back
   * window, summed over the running replicas); returns the decision if the target changed.
   */
  Optional<Decision> evaluate(long nowNanos, double totalLoad, int running) {
    if (running == 0) {
      return Optional.empty();  // nothing measured yet (starting, or every replica replaced)
    }
    double ratio = totalLoad / (config.targetOngoingRequests() * running);
    double factor = ratio > 1 ? config.upscaleSmoothingFactor()
        : config.downscaleSmoothingFactor();
    double smoothed = 1 + (ratio - 1) * factor;
    desired = clamp((int) Math.ceil(running * smoothed - 1e-9));
    if (desired > target) {
      downSince = -1;
      upSince = upSince < 0 ? nowNanos : upSince;
      if (nowNanos - upSince >= seconds(config.upscaleDelayS())) {
        return Optional.of(apply(nowNanos, totalLoad, running, "upscale_delay_s",
            config.upscaleDelayS()));
      }
    } else if (desired < target) {
      upSince = -1;
      downSince = downSince < 0 ? nowNanos : downSince;
      if (nowNanos - downSince >= seconds(config.downscaleDelayS())) {
        return Optional.of(apply(nowNanos, totalLoad, running, "downscale_delay_s",
            config.downscaleDelayS()));
      }
    } else {
      upSince = -1;
      downSince = -1;
    }
    return Optional.empty();
  }

  private Decision apply(long nowNanos, double totalLoad, int running, String delay,
      double delayS) {
    Decision decision = new Decision(System.currentTimeMillis(), target, desired, totalLoad,
        running, String.format("load %.2f over %d running replicas, target %.2f per replica; "
            + "held for %s %.1f s", totalLoad, running, config.targetOngoingRequests(), delay,
            delayS));
    target = desired;
    upSince = -1;
    downSince = -1;
    last = decision;
    return decision;
  }

  private int clamp(int count) {
    return Math.max(config.minReplicas(), Math.min(config.maxReplicas(), count));
  }

  private static long seconds(double s) {
    return (long) (s * 1e9);
  }
}
