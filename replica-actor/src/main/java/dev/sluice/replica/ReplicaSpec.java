package dev.sluice.replica;

import dev.sluice.core.ReplicaId;
import dev.sluice.core.config.LlmConfig;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.Objects;

/** What the controller asks a node to run: one replica of one model's deployment. */
public record ReplicaSpec(ReplicaId id, LlmConfig llm) implements ClusterMessage {

  public ReplicaSpec {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(llm, "llm");
  }
}
