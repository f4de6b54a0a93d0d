package dev.sluice.replica.engine;

import dev.sluice.core.config.EngineConfig;
import dev.sluice.core.http.ClusterToken;
import dev.sluice.core.config.LlmConfig;
import java.time.Duration;
import java.util.Objects;

/** Creates the engine an {@link EngineConfig} names. */
public final class Engines {

  private Engines() {}

  /**
   * The engine of {@code llm}: {@link SimulatedEngine} or {@link OpenAiProcessEngine} (whose
   * output is logged with {@code name}, the replica id, and which gets the deployment's
   * {@code graceful_shutdown_timeout_s} between SIGTERM and SIGKILL when it stops).
   */
  public static Engine create(LlmConfig llm, String name) {
    return create(llm, name, "127.0.0.1");
  }

  /** As {@link #create(LlmConfig, String)}, an external server binding to {@code host}. */
  public static Engine create(LlmConfig llm, String name, String host) {
    return create(llm, name, host, ClusterToken.NONE);
  }

  /** As above, with the cluster token the external server is told and sent. */
  public static Engine create(LlmConfig llm, String name, String host, ClusterToken token) {
    return create(llm, name, host, token, GpuPool.NONE);
  }

  /** As above, an external server taking its {@code num_gpus} from the node's {@code gpus}. */
  public static Engine create(LlmConfig llm, String name, String host, ClusterToken token,
      GpuPool gpus) {
    Objects.requireNonNull(llm, "llm");
    Objects.requireNonNull(name, "name");
    EngineConfig config = llm.engine();
    if (config.type().equals(EngineConfig.OPENAI_PROCESS)) {
      double graceSeconds = llm.deployment().gracefulShutdownTimeoutS();
      return new OpenAiProcessEngine(config, llm.modelId(), name,
          Duration.ofMillis(Math.round(graceSeconds * 1000)), host, token, gpus);
    }
    return create(config);
  }

  /**
   * An engine that needs nothing but its config: {@code simulated}. An {@code openai-process}
   * engine needs its model and replica: {@link #create(LlmConfig, String)}.
   */
  public static Engine create(EngineConfig config) {
    Objects.requireNonNull(config, "config");
    if (config.type().equals(EngineConfig.SIMULATED)) {
      return new SimulatedEngine(config);
    }
    if (config.type().equals(EngineConfig.OPENAI_PROCESS)) {
      throw new IllegalArgumentException("engine_config.type: openai-process needs the model id "
          + "and replica: Engines.create(LlmConfig, String)");
    }
    throw new IllegalArgumentException("engine_config.type: '" + config.type() + "' (expected: "
        + "one of " + String.join(", ", EngineConfig.TYPES) + ")");
  }
}
