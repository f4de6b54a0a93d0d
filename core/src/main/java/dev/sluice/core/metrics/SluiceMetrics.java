package dev.sluice.core.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one place metrics are registered. Names get the {@code sluice_} prefix; asking twice for
 * the same name (with or without the prefix) returns the same metric (several routers or
 * replicas in one JVM share them, told apart by labels), and asking for a name with another type
 * or labels is an error.
 *
 * <p>No metric samples exemplars: Sluice's requests carry no trace to point at, and sampling
 * costs every observation a rate-limit check and every busy series a timer task ten times a
 * second (the client library's scheduler thread, waking even on an idle node).
 */
public final class SluiceMetrics {

  private static final SluiceMetrics GLOBAL = new SluiceMetrics(PrometheusRegistry.defaultRegistry);

  /** Latency buckets for in-process decisions, in seconds (1 µs .. 100 ms). */
  public static final double[] FAST_SECONDS = {
    1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 1e-2, 1e-1
  };

  private final PrometheusRegistry registry;
  private final Map<String, Registered> metrics = new ConcurrentHashMap<>();

  private record Registered(Object metric, String kind, String labels) {}

  public SluiceMetrics(PrometheusRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** Metrics in the JVM's default registry (what {@code /metrics} exposes). */
  public static SluiceMetrics global() {
    return GLOBAL;
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  public Counter counter(String name, String help, String... labelNames) {
    return get(name, "counter", labelNames, () -> Counter.builder().name(prefixed(name)).help(help)
        .labelNames(labelNames).withoutExemplars().register(registry));
  }

  public Gauge gauge(String name, String help, String... labelNames) {
    return get(name, "gauge", labelNames, () -> Gauge.builder().name(prefixed(name)).help(help)
        .labelNames(labelNames).withoutExemplars().register(registry));
  }

  public Histogram histogram(String name, String help, double[] buckets, String... labelNames) {
    return get(name, "histogram", labelNames, () -> Histogram.builder().name(prefixed(name))
        .help(help).classicOnly().classicUpperBounds(buckets).labelNames(labelNames)
        .withoutExemplars().register(registry));
  }

  private <T> T get(String name, String kind, String[] labelNames,
      java.util.function.Supplier<T> create) {
    String labels = String.join(",", labelNames);
    Registered registered = metrics.computeIfAbsent(prefixed(name),
        n -> new Registered(create.get(), kind, labels));
    if (!registered.kind().equals(kind) || !registered.labels().equals(labels)) {
      throw new IllegalArgumentException("metric " + name + " already registered as "
          + registered.kind() + "{" + registered.labels() + "}, not " + kind + "{" + labels + "}");
    }
    @SuppressWarnings("unchecked")
    T metric = (T) registered.metric();
    return metric;
  }

  private static String prefixed(String name) {
    return name.startsWith("sluice_") ? name : "sluice_" + name;
  }
}
