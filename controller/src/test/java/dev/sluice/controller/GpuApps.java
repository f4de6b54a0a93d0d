package dev.sluice.controller;

import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.config.ApplicationsConfigParser;

/** Applications for the controller's GPU tests. */
final class GpuApps {

  private GpuApps() {}

  /** App {@code llm}, model {@code ext}: a vLLM-like server of one GPU per replica. */
  static ApplicationsConfig oneGpuServer(int replicas) {
    return ApplicationsConfigParser.parse("""
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: ext}
                engine_config:
                  type: openai-process
                  command: [vllm, serve, '{model}', --port, '{port}']
                  num_gpus: 1
                deployment_config: {num_replicas: %d}
        """.formatted(replicas));
  }
}
