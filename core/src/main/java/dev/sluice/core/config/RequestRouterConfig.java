package dev.sluice.core.config;

import java.util.Map;
import java.util.Objects;

/**
 * Which routing policy a deployment uses: a registered key ({@code round-robin}, ...) or a fully
 * qualified class name, with its keyword arguments (plain JSON values).
 */
public record RequestRouterConfig(String requestRouterClass, Map<String, Object> kwargs) {

  public static final String DEFAULT = "round-robin";

  public RequestRouterConfig {
    Objects.requireNonNull(requestRouterClass, "requestRouterClass");
    kwargs = Map.copyOf(kwargs);
  }
}
