package dev.sluice.router.internal;

import dev.sluice.core.metrics.SlidingRate;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.router.spi.PolicyMetrics;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import io.prometheus.metrics.core.metrics.Counter;

/**
 * The router's metrics for one deployment and its policy, registered through
 * {@link SluiceMetrics}: decisions and their latency, fallbacks by rank, index (ring) rebuilds and
 * the affinity rate over the last 1,000 decisions that could follow affinity.
 */
public final class RouterMetrics implements PolicyMetrics {

  private static final int AFFINITY_WINDOW = 1000;

  private final CounterDataPoint routed;
  private final CounterDataPoint refused;
  private final DistributionDataPoint latency;
  private final Counter fallbacks;
  private final CounterDataPoint rebuilds;
  private final GaugeDataPoint affinityRate;
  private final SlidingRate affinity = new SlidingRate(AFFINITY_WINDOW);
  private final CounterDataPoint queueFallbacks;
  private final CounterDataPoint affinityHits;
  private final CounterDataPoint affinityMisses;
  private final GaugeDataPoint replicas;
  private final io.prometheus.metrics.core.metrics.Gauge replicasGauge;
  private final io.prometheus.metrics.core.metrics.Gauge affinityGauge;
  private final String deployment;
  private final String policy;

  public RouterMetrics(SluiceMetrics metrics, String deployment, String policy) {
    this.deployment = deployment;
    this.policy = policy;
    Counter decisions = metrics.counter("router_decisions_total",
        "Routing decisions by outcome (routed: a replica was chosen).",
        "deployment", "policy", "outcome");
    this.routed = decisions.labelValues(deployment, policy, "routed");
    this.refused = decisions.labelValues(deployment, policy, "no_replica");
    this.latency = metrics.histogram("router_decision_seconds",
        "Time the policy took to rank the candidates.", SluiceMetrics.FAST_SECONDS, "policy")
        .labelValues(policy);
    this.fallbacks = metrics.counter("router_fallbacks_total",
        "Requests that went to a replica below the first rank (e.g. a consistent-hash "
            + "successor), by rank.", "deployment", "policy", "rank");
    this.rebuilds = metrics.counter("router_index_rebuilds_total",
        "Policy index rebuilds (consistent-hash ring, prefix index) after replica-set changes.",
        "deployment", "policy").labelValues(deployment, policy);
    this.affinityGauge = metrics.gauge("router_affinity_rate",
        "Share of the last 1000 affinity-eligible decisions that followed affinity.",
        "deployment", "policy");
    this.affinityRate = affinityGauge.labelValues(deployment, policy);
    Counter affinityOutcomes = metrics.counter("router_affinity_total",
        "Decisions that could follow affinity (a session's replica for consistent-hash, a cached "
            + "prefix for prefix-cache), by outcome: hit (followed it) or miss.",
        "deployment", "policy", "outcome");
    this.affinityHits = affinityOutcomes.labelValues(deployment, policy, "hit");
    this.affinityMisses = affinityOutcomes.labelValues(deployment, policy, "miss");
    this.replicasGauge = metrics.gauge("router_replicas",
        "Replicas in the router's current replica set of each deployment.", "deployment");
    this.replicas = replicasGauge.labelValues(deployment);
    this.queueFallbacks = metrics.counter("capacity_fallbacks_total",
        "Requests routed by power-of-two because the CapacityQueue kept failing.", "deployment")
        .labelValues(deployment);
  }

  /** Drops this deployment's gauges (removed, or the router stopped). */
  public void retire() {
    replicasGauge.remove(deployment);
    affinityGauge.remove(deployment, policy);
  }

  /** The deployment's replica set now has {@code count} replicas. */
  public void replicas(int count) {
    replicas.set(count);
  }

  public void queueFallback() {
    queueFallbacks.inc();
  }

  public void decided(long nanos, boolean found) {
    latency.observe(nanos / 1e9);
    (found ? routed : refused).inc();
  }

  public void rankUsed(int rank) {
    if (rank > 0) {
      fallbacks.labelValues(deployment, policy, Integer.toString(rank)).inc();
    }
  }

  @Override
  public void indexRebuilt() {
    rebuilds.inc();
  }

  @Override
  public void affinity(boolean hit) {
    affinityRate.set(affinity.record(hit));
    (hit ? affinityHits : affinityMisses).inc();
  }

  public double affinityRate() {
    return affinity.rate();
  }
}
