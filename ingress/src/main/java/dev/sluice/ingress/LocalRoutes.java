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
 * The routes the ingress answers itself, from its replica sets, on every data path: {@code GET
 * /v1/models}, {@code GET /v1/models/{id}}, {@code GET /-/healthz}, {@code GET /-/routes}; any
 * other path is a 404 (or 405) in the OpenAI error shape. The completions go to replicas.
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

  /** The answer to a request that is not a completion ({@code POST} to a completion route). */
  Answer answer(String method, String path, String requestId) {
    boolean known = isCompletion(path) || path.equals(MODELS) || path.startsWith(MODELS + "/")
        || path.equals("/-/healthz") || path.equals("/-/routes");
    if (known && !method.equals(isCompletion(path) ? "POST" : "GET")) {
      return Answers.error(ApiError.Code.METHOD_NOT_ALLOWED,
          "Method " + method + " not allowed on " + path, requestId);
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
