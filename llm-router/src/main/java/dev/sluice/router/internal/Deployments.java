package dev.sluice.router.internal;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.metrics.SluiceMetrics;
import dev.sluice.core.openai.ForwardedBody;
import dev.sluice.core.openai.RoutingKeys;
import dev.sluice.router.RouteRequest;
import dev.sluice.router.RouteResult;
import dev.sluice.router.spi.LoadView;
import dev.sluice.router.spi.PendingRequest;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The router's deployments: the latest replica set and policy of each, and which deployment a
 * request goes to: among the deployments of the application whose route prefix took its path,
 * the one serving the model it names, else the only one.
 */
public final class Deployments {

  private final Map<DeploymentId, DeploymentRouting> byId = new HashMap<>();
  /** The version at which each removed deployment was removed: older sets do not revive it. */
  private final Map<DeploymentId, Long> removedAt = new HashMap<>();
  private final LoadView loads;
  private final SluiceMetrics metrics;

  /** A deployment that can route, and the request as its policy sees it. */
  public record Target(DeploymentRouting routing, PendingRequest request) {}

  public Deployments(LoadView loads, SluiceMetrics metrics) {
    this.loads = loads;
    this.metrics = metrics;
  }

  /** The router stopped: every deployment's gauges are dropped. */
  public void retireAll() {
    byId.values().forEach(DeploymentRouting::retire);
  }

  /** Applies a newer replica set; returns whether anything changed. */
  public boolean apply(ReplicaSet set) {
    DeploymentRouting routing = byId.get(set.deployment());
    if (set.version() <= removedAt.getOrDefault(set.deployment(), Long.MIN_VALUE)
        || (routing != null && set.version() <= routing.set().version())) {
      return false;
    }
    if (set.removed()) {
      removedAt.put(set.deployment(), set.version());
      DeploymentRouting gone = byId.remove(set.deployment());
      if (gone != null) {
        gone.retire();
      }
      return gone != null;
    }
    removedAt.remove(set.deployment());
    if (routing == null) {
      byId.put(set.deployment(), new DeploymentRouting(set, loads, metrics));
      return true;
    }
    routing.update(set);
    return true;
  }

  public Optional<DeploymentRouting> get(DeploymentId deployment) {
    return Optional.ofNullable(byId.get(deployment));
  }

  /** Every replica of every deployment. */
  public Set<ReplicaId> liveReplicas() {
    Set<ReplicaId> live = new HashSet<>();
    byId.values().forEach(d -> d.set().replicas().forEach(r -> live.add(r.id())));
    return live;
  }

  public Optional<Target> resolve(RouteRequest request) {
    RoutingKeys keys = request.body().map(ForwardedBody::routingKeys).orElse(RoutingKeys.NONE);
    Optional<String> model = request.model().isPresent() ? request.model() : keys.model();
    DeploymentRouting routing = model.isPresent() ? serving(model.get(), request.app())
        : only(request.app());
    if (routing == null || routing.error().isPresent()) {
      return Optional.empty();
    }
    return Optional.of(new Target(routing, new PendingRequest(request.requestId(),
        request.sessionId(), model, keys.prompt())));
  }

  private DeploymentRouting serving(String model, Optional<String> app) {
    for (DeploymentRouting candidate : byId.values()) {
      if (candidate.set().inApp(app) && candidate.set().serves(model)) {
        return candidate;
      }
    }
    return null;
  }

  /** The one deployment of {@code app} (of all, when empty), or null if there are several. */
  private DeploymentRouting only(Optional<String> app) {
    DeploymentRouting found = null;
    for (DeploymentRouting candidate : byId.values()) {
      if (candidate.set().inApp(app)) {
        if (found != null) {
          return null;
        }
        found = candidate;
      }
    }
    return found;
  }

  private int count(Optional<String> app) {
    int count = 0;
    for (DeploymentRouting candidate : byId.values()) {
      count += candidate.set().inApp(app) ? 1 : 0;
    }
    return count;
  }

  /** Why {@link #resolve} found no deployment for the request, in words. */
  public RouteResult unresolved(RouteRequest request) {
    Optional<String> model = request.routingModel();
    Optional<String> app = request.app();
    if (model.isPresent()) {
      DeploymentRouting routing = serving(model.get(), app);
      if (routing != null && routing.error().isPresent()) {
        return new RouteResult.NotRouted(ServeReason.NO_REPLICAS, routing.error().get());
      }
      return new RouteResult.NotRouted(ServeReason.MODEL_NOT_FOUND, "The model `"
          + abbreviate(model.get()) + "` does not exist" + app.map(a -> " in application `"
          + abbreviate(a) + "`").orElse("") + " (served: " + servedModels(app) + ")");
    }
    int deployments = count(app);
    if (deployments == 1) {
      return new RouteResult.NotRouted(ServeReason.NO_REPLICAS, only(app).error().orElse(""));
    }
    return deployments == 0
        ? new RouteResult.NotRouted(ServeReason.NO_REPLICAS, app.isPresent()
            ? "no deployments of application `" + abbreviate(app.get())
                + "` known to the router yet"
            : "no deployments known to the router yet")
        : new RouteResult.NotRouted(ServeReason.MODEL_REQUIRED,
            "model: missing (expected: one of " + servedModels(app) + ")");
  }

  private String servedModels(Optional<String> app) {
    java.util.TreeSet<String> models = new java.util.TreeSet<>();
    byId.values().stream().filter(routing -> routing.set().inApp(app))
        .forEach(routing -> models.addAll(routing.set().modelIds()));
    return models.isEmpty() ? "none" : String.join(", ", models);
  }

  /**
   * A client's model name as an answer quotes it (also in a header): at most 60 characters,
   * anything but printable ASCII as {@code ?}.
   */
  private static String abbreviate(String text) {
    String cut = text.length() <= 60 ? text : text.substring(0, 57) + "...";
    return cut.chars().map(c -> c >= 0x20 && c < 0x7f ? c : '?')
        .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
        .toString();
  }

  /**
   * The answer when a deployment's policy ranked nobody, or nobody but replicas the caller
   * excluded (an ingress or HAProxy that could not reach or does not know them).
   */
  public static RouteResult noReplicas(DeploymentRouting routing, List<String> excluded) {
    int count = routing.set().replicas().size();
    long excludedHere = routing.set().replicas().stream()
        .filter(replica -> excluded.contains(replica.id().toString())).count();
    String deployment = routing.set().deployment().toString();
    String detail;
    if (count == 0) {
      detail = "no replicas available for " + deployment;
    } else if (excludedHere == count) {
      detail = "all " + count + " replicas of " + deployment + " were excluded by the caller";
    } else if (excludedHere > 0) {
      detail = "none of the " + count + " replicas of " + deployment + " can take the request ("
          + excludedHere + " excluded by the caller, the others known to be at "
          + "max_ongoing_requests)";
    } else {
      detail = "none of the " + count + " replicas of " + deployment
          + " can take the request (all known to be at max_ongoing_requests)";
    }
    return new RouteResult.NotRouted(ServeReason.NO_REPLICAS, detail);
  }
}
