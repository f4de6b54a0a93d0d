package dev.sluice.ingress;

import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.http.JsonText;
import java.util.Optional;
import java.util.TreeSet;

/** The models this ingress can route to, as OpenAI's {@code /v1/models} lists them. */
final class ModelCatalog {

  private ModelCatalog() {}

  static String list(ReplicaSetView view) {
    TreeSet<String> ids = new TreeSet<>();
    for (ReplicaSet set : view.all()) {
      ids.addAll(set.modelIds());
    }
    StringBuilder json = new StringBuilder("{\"object\":\"list\",\"data\":[");
    boolean first = true;
    for (String id : ids) {
      json.append(first ? "" : ",").append(model(id));
      first = false;
    }
    return json.append("]}").toString();
  }

  static Optional<String> find(ReplicaSetView view, String id) {
    for (ReplicaSet set : view.all()) {
      if (set.serves(id)) {
        return Optional.of(model(id));
      }
    }
    return Optional.empty();
  }

  private static String model(String id) {
    return "{\"id\":" + JsonText.quote(id)
        + ",\"object\":\"model\",\"created\":0,\"owned_by\":\"sluice\"}";
  }
}
