package dev.sluice.ingress;

import dev.sluice.core.AppRoute;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.JsonText;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.Answers;
import dev.sluice.router.spi.RequestRouters;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which application a path belongs to, and the routes the ingress answers itself, from its
 * replica sets, on every data path. As in Ray Serve, an application serves under its route
 * prefix ({@code /chat/v1/chat/completions} for {@code route_prefix: /chat}; the longest prefix
 * that takes the path wins): {@code GET} (and {@code HEAD}) {@code /v1/models} and
 * {@code /v1/models/{id}} list that application's models. {@code /-/healthz} and
 * {@code /-/routes} are the ingress's own, under no prefix. Any other path is a 404 (or 405) in
 * the OpenAI error shape. The completions go to replicas.
 */
final class LocalRoutes {

  private static final String MODELS = "/v1/models";
  private static final String HEALTH = "/-/healthz";
  private static final String ROUTES = "/-/routes";

  private final ReplicaSetView view;

  LocalRoutes(ReplicaSetView view) {
    this.view = view;
  }

  /**
   * Where a request goes.
   *
   * @param app the application whose route prefix took the path; empty while the ingress knows
   *     no application (the router then says why it cannot route)
   * @param prefix that application's route prefix
   * @param path the path within the application (without the prefix)
   */
  record Target(Optional<String> app, String prefix, String path) {

    /** The request target to send a replica: {@code target} with the prefix taken off. */
    String upstream(String target) {
      if (prefix.equals("/")) {
        return target;
      }
      int query = target.indexOf('?');
      return query < 0 ? path : path + target.substring(query);
    }
  }

  /** Where {@code path} goes, or null when no application's route prefix takes it. */
  Target target(String path) {
    Optional<AppRoute> route = view.route(path);
    if (route.isPresent()) {
      return new Target(Optional.of(route.get().app()), route.get().prefix(), route.get().path());
    }
    return view.all().isEmpty() ? new Target(Optional.empty(), "/", path) : null;
  }

  /**
   * Whether a deployment of {@code app} routes by the prompt, so that its requests take their
   * body to the router whatever {@code forward-body} says.
   */
  static boolean routesByPrompt(ReplicaSetView view, Optional<String> app) {
    for (ReplicaSet set : view.all()) {
      if (set.inApp(app) && RequestRouters.readsPrompt(set.routerClass())) {
        return true;
      }
    }
    return false;
  }

  boolean routesByPrompt(Optional<String> app) {
    return routesByPrompt(view, app);
  }

  /** Whether {@code path} is one of the completion routes, forwarded to a replica. */
  static boolean isCompletion(String path) {
    return path.equals("/v1/chat/completions") || path.equals("/v1/completions");
  }

  /**
   * The answer to a request that is not a completion ({@code POST} to a completion route). A
   * {@code HEAD} is answered as its {@code GET}; the data path leaves the body out. A known path
   * with the wrong method is 405 with {@code Allow} naming the right ones.
   */
  Answer answer(String method, String path, String requestId) {
    boolean own = path.equals(HEALTH) || path.equals(ROUTES);
    Target target = own ? new Target(Optional.empty(), "/", path) : target(path);
    if (target == null) {
      return Answers.error(ApiError.Code.NOT_FOUND, "Not found: " + path + " (route prefixes: "
          + String.join(", ", view.routePrefixes().keySet()) + ")", requestId);
    }
    String inner = target.path();
    String allow = allowedMethods(inner, own);
    if (allow != null && (isCompletion(inner)
        || !(method.equals("GET") || method.equals("HEAD")))) {
      return Answers.error(ApiError.Code.METHOD_NOT_ALLOWED,
          "Method " + method + " not allowed on " + path, requestId).with("Allow", allow);
    }
    String json;
    if (own) {
      json = path.equals(HEALTH) ? "{\"status\":\"ok\"}" : routes();
    } else if (inner.equals(MODELS)) {
      json = ModelCatalog.list(view, target.app());
    } else if (inner.startsWith(MODELS + "/")) {
      String id = inner.substring(MODELS.length() + 1);
      json = ModelCatalog.find(view, target.app(), id).orElse(null);
      if (json == null) {
        return Answers.error(new ApiError(ApiError.Code.MODEL_NOT_FOUND,
            "The model `" + id + "` does not exist", "model"), requestId);
      }
    } else {
      return Answers.error(ApiError.Code.NOT_FOUND, "Not found: " + path, requestId);
    }
    return Answer.json(200, json).with(SluiceHeaders.REQUEST_ID, requestId);
  }

  /**
   * The methods {@code path} (within an application, or the ingress's {@code own}) takes
   * ({@code Allow}), or null for a path not served here.
   */
  private static String allowedMethods(String path, boolean own) {
    if (own) {
      return "GET, HEAD";
    }
    if (isCompletion(path)) {
      return "POST";
    }
    return path.equals(MODELS) || path.startsWith(MODELS + "/") ? "GET, HEAD" : null;
  }

  /** Route prefix to application name, like Ray Serve's {@code /-/routes}. */
  private String routes() {
    Map<String, String> routes = new TreeMap<>();
    for (ReplicaSet set : view.all()) {
      if (!set.replicas().isEmpty()) {
        routes.put(set.routePrefix(), set.deployment().app());
      }
    }
    StringBuilder json = new StringBuilder("{");
    routes.forEach((prefix, app) -> {
      if (json.length() > 1) {
        json.append(',');
      }
      json.append(JsonText.quote(prefix)).append(':').append(JsonText.quote(app));
    });
    return json.append('}').toString();
  }
}
