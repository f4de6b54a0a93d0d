package dev.sluice.ingress;

import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.openai.ModelList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The models this ingress can route to, as OpenAI's {@code /v1/models} lists them: those of
 * deployments with a replica (a removed deployment's last set is empty).
 */
final class ModelCatalog {

  private ModelCatalog() {}

  static String list(ReplicaSetView view) {
    TreeSet<String> ids = new TreeSet<>();
    for (ReplicaSet set : view.all()) {
      if (!set.replicas().isEmpty()) {
        ids.addAll(set.modelIds());
      }
    }
    return ModelList.json(List.copyOf(ids));
  }

  static Optional<String> find(ReplicaSetView view, String id) {
    for (ReplicaSet set : view.all()) {
      if (!set.replicas().isEmpty() && set.serves(id)) {
        return Optional.of(ModelList.model(id));
      }
    }
    return Optional.empty();
  }
}
