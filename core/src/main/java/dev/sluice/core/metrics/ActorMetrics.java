package dev.sluice.core.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Instruments an actor's behavior: every message it processes is counted by actor kind and
 * message type ({@code sluice_actor_messages_total{actor,message}}) and timed
 * ({@code sluice_actor_processing_seconds{actor}}). Mailbox depth comes from
 * {@link CountingMailbox}, which the same actors are spawned with.
 */
public final class ActorMetrics {

  /** Processing-time buckets in seconds (1 µs .. 1 s). */
  static final double[] PROCESSING_SECONDS = {
    1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2, 0.1, 1
  };

  private final Counter messages;
  private final Histogram processing;

  private ActorMetrics(SluiceMetrics metrics) {
    this.messages = metrics.counter("actor_messages_total",
        "Messages an instrumented actor processed, by actor kind and message type.",
        "actor", "message");
    this.processing = metrics.histogram("actor_processing_seconds",
        "Time an instrumented actor spent processing one message, by actor kind.",
        PROCESSING_SECONDS, "actor");
  }

  private static final ActorMetrics GLOBAL = new ActorMetrics(SluiceMetrics.global());

  /** {@code behavior}, counted and timed in the node's registry as actor kind {@code kind}. */
  public static <T> Behavior<T> instrument(String kind, Behavior<T> behavior) {
    return GLOBAL.wrap(kind, behavior);
  }

  /** The same, in {@code metrics}' registry (tests). */
  public static <T> Behavior<T> instrument(SluiceMetrics metrics, String kind,
      Behavior<T> behavior) {
    return new ActorMetrics(metrics).wrap(kind, behavior);
  }

  private <T> Behavior<T> wrap(String kind, Behavior<T> behavior) {
    return Behaviors.intercept(() -> new Timing<T>(kind), behavior);
  }

  private final class Timing<T> extends BehaviorInterceptor<T, T> {

    private final String kind;
    private final DistributionDataPoint time;
    /** Per message class: one data point each, looked up without building label lists. */
    private final Map<Class<?>, CounterDataPoint> byType = new ConcurrentHashMap<>();

    @SuppressWarnings("unchecked")
    Timing(String kind) {
      super((Class<T>) (Class<?>) Object.class);
      this.kind = kind;
      this.time = processing.labelValues(kind);
    }

    @Override
    public Behavior<T> aroundReceive(TypedActorContext<T> context, T message,
        ReceiveTarget<T> target) {
      long start = System.nanoTime();
      try {
        return target.apply(context, message);
      } finally {
        byType.computeIfAbsent(message.getClass(),
            type -> messages.labelValues(kind, messageName(type))).inc();
        time.observe((System.nanoTime() - start) / 1e9);  // last: a timed message is counted
      }
    }

    @Override
    public boolean isSame(BehaviorInterceptor<Object, Object> other) {
      return other instanceof ActorMetrics.Timing<?> timing && timing.kind.equals(kind);
    }
  }

  /** The message's class as a label: its simple name with enclosing classes (Controller.Tick). */
  static String messageName(Class<?> type) {
    String name = type.getName();
    int dot = name.lastIndexOf('.');
    String simple = name.substring(dot + 1);
    // Lambdas get generated names (Outer$$Lambda$12/0x...): keep their outer class only.
    int generated = simple.indexOf("$$");
    if (generated >= 0) {
      simple = simple.substring(0, generated);
    }
    simple = simple.replace('$', '.');
    return simple.replaceAll("\\.[0-9]+$", ".anonymous");  // anonymous classes: Outer$1
  }
}
