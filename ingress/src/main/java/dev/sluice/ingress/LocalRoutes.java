package dev.sluice.ingress;

import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.JsonText;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.Answers;
import java.util.Map;
import java.util.TreeMap;

/**
 * The routes the ingress answers itself, from its replica sets, on every data path: {@code GET}
 * (and {@code HEAD}) {@code /v1/models}, {@code /v1/models/{id}}, {@code /-/healthz} and
 * {@code /-/routes}; any other path is a 404 (or 405) in the OpenAI error shape. The completions
 * go to replicas.
 */
final class LocalRoutes {

  private static final String MODELS = "/v1/models";

  private final ReplicaSetView view;

  LocalRoutes(ReplicaSetView view) {
    this.view = view;
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
    String allow = allowedMethods(path);
    if (allow != null && (isCompletion(path)
        || !(method.equals("GET") || method.equals("HEAD")))) {
      return Answers.error(ApiError.Code.METHOD_NOT_ALLOWED,
          "Method " + method + " not allowed on " + path, requestId).with("Allow", allow);
    }
    String json;
    if (path.equals(MODELS)) {
      json = ModelCatalog.list(view);
    } else if (path.startsWith(MODELS + "/")) {
      String id = path.substring(MODELS.length() + 1);
      json = ModelCatalog.find(view, id).orElse(null);
      if (json == null) {
        return Answers.error(new ApiError(ApiError.Code.MODEL_NOT_FOUND,
            "The model `" + id + "` does not exist", "model"), requestId);
      }
    } else if (path.equals("/-/healthz")) {
      json = "{\"status\":\"ok\"}";
    } else if (path.equals("/-/routes")) {
      json = routes();
    } else {
      return Answers.error(ApiError.Code.NOT_FOUND, "Not found: " + path, requestId);
    }
    return Answer.json(200, json).with(SluiceHeaders.REQUEST_ID, requestId);
  }

  /** The methods {@code path} takes ({@code Allow}), or null for a path not served here. */
  private static String allowedMethods(String path) {
    if (isCompletion(path)) {
      return "POST";
    }
    boolean read = path.equals(MODELS) || path.startsWith(MODELS + "/")
        || path.equals("/-/healthz") || path.equals("/-/routes");
    return read ? "GET, HEAD" : null;
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
