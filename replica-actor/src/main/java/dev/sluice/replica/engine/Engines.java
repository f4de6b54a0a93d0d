package dev.sluice.replica.engine;

import dev.sluice.core.config.EngineConfig;

/** Creates the engine an {@link EngineConfig} names. */
public final class Engines {

  private Engines() {}

  public static Engine create(EngineConfig config) {
    if (config.type().equals(EngineConfig.SIMULATED)) {
      return new SimulatedEngine(config);
    }
    throw new IllegalArgumentException(
        "engine_config.type: '" + config.type() + "' (expected: simulated)");
  }
}
