package dev.sluice.core.config;

import java.util.List;
import java.util.Objects;

/** One application: a route prefix and one LLM deployment per model. */
public record ApplicationConfig(String name, String routePrefix, List<LlmConfig> llmConfigs)
    implements dev.sluice.core.serialization.ClusterMessage {

  public ApplicationConfig {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(routePrefix, "routePrefix");
    llmConfigs = List.copyOf(llmConfigs);
  }
}
