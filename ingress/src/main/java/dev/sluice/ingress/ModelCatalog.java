package dev.sluice.ingress;

import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.openai.ModelList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The models this ingress can route to, as OpenAI's {@code /v1/models} lists them: every model
 * of every deployment of the application the path is under, also one scaled to zero replicas
 * for now (a request for it is answered {@code no_replicas}, not {@code model_not_found}).
 * Removed deployments are not in the view.
 */
final class ModelCatalog {

  private ModelCatalog() {}

  /** The models of {@code app}'s deployments (of every deployment when empty). */
  static String list(ReplicaSetView view, Optional<String> app) {
    TreeSet<String> ids = new TreeSet<>();
    for (ReplicaSet set : view.all()) {
      if (set.inApp(app)) {
        ids.addAll(set.modelIds());
      }
    }
    return ModelList.json(List.copyOf(ids));
  }

  static Optional<String> find(ReplicaSetView view, Optional<String> app, String id) {
    for (ReplicaSet set : view.all()) {
      if (set.inApp(app) && set.serves(id)) {
        return Optional.of(ModelList.model(id));
      }
    }
    return Optional.empty();
  }
}
