package dev.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ApplicationsConfigParserTest {

  private static final String DESIGN_EXAMPLE = """
      applications:
        - name: llm
          route_prefix: /
          llm_configs:
            - model_loading_config:
                model_id: sluice-sim
              engine_config:
                type: simulated
                ttft_ms: 20
                itl_ms: 5
              deployment_config:
                num_replicas: 2
                max_ongoing_requests: 64
                graceful_shutdown_timeout_s: 20
                request_router_config:
                  request_router_class: consistent-hash
                  request_router_kwargs: {num_virtual_nodes: 100, num_fallback_replicas: 2}
      """;

  @Test
  void parsesTheDesignExample() {
    ApplicationsConfig config = ApplicationsConfigParser.parse(DESIGN_EXAMPLE);

    ApplicationConfig app = config.applications().get(0);
    LlmConfig llm = app.llmConfigs().get(0);
    assertThat(app.name()).isEqualTo("llm");
    assertThat(llm.deploymentName()).isEqualTo("sluice-sim");
    assertThat(llm.engine().ttftMs()).isEqualTo(20);
    assertThat(llm.engine().itlMs()).isEqualTo(5);
    assertThat(llm.deployment().numReplicas()).isEqualTo(2);
    assertThat(llm.deployment().maxOngoingRequests()).isEqualTo(64);
    assertThat(llm.deployment().requestRouter().requestRouterClass()).isEqualTo("consistent-hash");
    assertThat(llm.deployment().requestRouter().kwargs()).containsEntry("num_virtual_nodes", 100L);
  }

  @Test
  void appliesDefaults() {
    ApplicationsConfig config = ApplicationsConfigParser.parse("""
        {"applications": [{"name": "a", "llm_configs": [
          {"model_loading_config": {"model_id": "m"}}]}]}""");

    LlmConfig llm = config.applications().get(0).llmConfigs().get(0);
    assertThat(config.applications().get(0).routePrefix()).isEqualTo("/");
    assertThat(llm.engine().type()).isEqualTo("simulated");
    assertThat(llm.deployment().numReplicas()).isEqualTo(1);
    assertThat(llm.deployment().requestRouter().requestRouterClass()).isEqualTo("round-robin");
  }

  @Test
  void negativeReplicaCountNamesTheField() {
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(
        DESIGN_EXAMPLE.replace("num_replicas: 2", "num_replicas: -1")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("applications[0].llm_configs[0].deployment_config.num_replicas: -1 "
            + "(expected: >= 0)");
  }

  @Test
  void aRoutePrefixIsTheRootOrSegmentsWithoutATrailingSlash() {
    for (String good : new String[] {"/", "/chat", "/team-a/chat.v2", "/~x_y"}) {
      assertThat(ApplicationsConfigParser.parse(DESIGN_EXAMPLE.replace("route_prefix: /",
          "route_prefix: '" + good + "'")).applications().get(0).routePrefix()).isEqualTo(good);
    }
    for (String bad : new String[] {"chat", "/chat/", "//chat", "/a b", "/chat?x", "/%41"}) {
      assertThatThrownBy(() -> ApplicationsConfigParser.parse(DESIGN_EXAMPLE.replace(
          "route_prefix: /", "route_prefix: '" + bad + "'")))
          .as(bad).hasMessageStartingWith("applications[0].route_prefix: '" + bad
              + "' (expected: '/' or a path such as '/chat'");
    }
  }

  @Test
  void unknownFieldIsAnError() {
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(
        DESIGN_EXAMPLE.replace("ttft_ms: 20", "ttft: 20")))
        .hasMessageStartingWith("applications[0].llm_configs[0].engine_config.ttft: unknown field");
  }

  @Test
  void missingModelIdIsAnError() {
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(
        DESIGN_EXAMPLE.replace("model_id: sluice-sim", "model_idx: x")))
        .hasMessageContaining("model_loading_config.model_idx: unknown field");
  }

  @Test
  void unknownEngineTypeIsAnError() {
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(
        DESIGN_EXAMPLE.replace("type: simulated", "type: magic")))
        .hasMessage("applications[0].llm_configs[0].engine_config.type: 'magic' "
            + "(expected: one of simulated, openai-process)");
  }

  private static final String PROCESS = """
      applications:
        - name: llm
          llm_configs:
            - model_loading_config: {model_id: Qwen/Qwen3-0.6B}
              engine_config:
                type: openai-process
                command: [vllm, serve, "{model}", --port, "{port}", --tensor-parallel-size, 2]
                env: {CUDA_VISIBLE_DEVICES: 0, HF_HOME: /data/hf}
                startup_timeout_s: 900
      """;

  @Test
  void openAiProcessTakesACommandAndDefaults() {
    EngineConfig engine = ApplicationsConfigParser.parse(PROCESS).applications().get(0)
        .llmConfigs().get(0).engine();

    assertThat(engine.type()).isEqualTo(EngineConfig.OPENAI_PROCESS);
    assertThat(engine.command()).containsExactly("vllm", "serve", "{model}", "--port", "{port}",
        "--tensor-parallel-size", "2");
    assertThat(engine.env()).containsExactlyInAnyOrderEntriesOf(
        java.util.Map.of("CUDA_VISIBLE_DEVICES", "0", "HF_HOME", "/data/hf"));
    assertThat(engine.port()).as("auto").isEqualTo(EngineConfig.AUTO_PORT);
    assertThat(engine.healthPath()).isEqualTo("/health");
    assertThat(engine.metricsPath()).isEqualTo("/metrics");
    assertThat(engine.startupTimeoutS()).isEqualTo(900);
    assertThat(engine.defaultMaxTokens()).isEqualTo(128);
  }

  @Test
  void openAiProcessTakesAFixedPortAndPaths() {
    EngineConfig engine = ApplicationsConfigParser.parse(PROCESS
        .replace("startup_timeout_s: 900", "port: 8000\n          health_path: /-/healthz\n"
            + "          metrics_path: /m"))
        .applications().get(0).llmConfigs().get(0).engine();

    assertThat(engine.port()).isEqualTo(8000);
    assertThat(engine.healthPath()).isEqualTo("/-/healthz");
    assertThat(engine.metricsPath()).isEqualTo("/m");
    assertThat(engine.startupTimeoutS()).isEqualTo(600);
  }

  @Test
  void openAiProcessMistakesAreNamed() {
    String base = "applications[0].llm_configs[0].engine_config.";
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replaceAll(
        " *command: .*\n", "")))
        .hasMessage(base + "command: missing (expected: a non-empty list of strings)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replaceAll(
        "command: .*\n", "command: []\n")))
        .hasMessageStartingWith(base + "command: [] (expected: a non-empty list of strings");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replaceAll(
        "command: .*\n", "command: vllm serve\n")))
        .hasMessage(base + "command: \"vllm serve\" (expected: a non-empty list of strings)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replaceAll(
        "command: .*\n", "command: [vllm, [serve]]\n")))
        .hasMessage(base + "command[1]: [\"serve\"] (expected: a string)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replace(
        "\"{port}\"", "8000")))
        .hasMessageStartingWith(base + "command: no {port} placeholder (expected: one when port"
            + " is auto");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replace(
        "startup_timeout_s: 900", "port: 70000")))
        .hasMessage(base + "port: 70000 (expected: \"auto\" or an integer 1..65535)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replace(
        "startup_timeout_s: 900", "port: automatic")))
        .hasMessage(base + "port: \"automatic\" (expected: \"auto\" or an integer 1..65535)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replace(
        "startup_timeout_s: 900", "startup_timeout_s: 0")))
        .hasMessage(base + "startup_timeout_s: 0 (expected: >= 1)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replace(
        "startup_timeout_s: 900", "health_path: health")))
        .hasMessage(base + "health_path: 'health' (expected: a URL path starting with '/')");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replace(
        "startup_timeout_s: 900", "metrics_path: /a b")))
        .hasMessage(base + "metrics_path: '/a b' (expected: a URL path starting with '/')");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replace(
        "HF_HOME: /data/hf", "HF_HOME: [a]")))
        .hasMessage(base + "env.HF_HOME: [\"a\"] (expected: a string)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replace(
        "HF_HOME: /data/hf", "\"A=B\": x")))
        .hasMessageStartingWith(base + "env: 'A=B' (expected: names without '='");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replace(
        "Qwen/Qwen3-0.6B", "q".repeat(257))))
        .hasMessage("applications[0].llm_configs[0].model_loading_config.model_id: 257 "
            + "characters (expected: at most 256)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replace(
        "--tensor-parallel-size, 2", "--api-key, \"{cluster_token}\"")))
        .hasMessageStartingWith(base + "command: {cluster_token} in an argument (expected: only "
            + "in env values");
    assertThat(ApplicationsConfigParser.parse(PROCESS.replace("HF_HOME: /data/hf",
            "VLLM_API_KEY: \"{cluster_token}\"")).applications().get(0).llmConfigs().get(0)
        .engine().env()).containsEntry("VLLM_API_KEY", "{cluster_token}");
  }

  @Test
  void openAiProcessTakesGpusPerReplicaButNotBesideItsOwnDeviceList() {
    String base = "applications[0].llm_configs[0].engine_config.";
    String own = PROCESS.replace("CUDA_VISIBLE_DEVICES: 0, ", "");
    assertThat(ApplicationsConfigParser.parse(own.replace("startup_timeout_s: 900",
        "num_gpus: 2")).applications().get(0).llmConfigs().get(0).engine().numGpus())
        .isEqualTo(2);
    assertThat(ApplicationsConfigParser.parse(PROCESS).applications().get(0).llmConfigs().get(0)
        .engine().numGpus()).as("default").isZero();
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(own.replace(
        "startup_timeout_s: 900", "num_gpus: -1")))
        .hasMessage(base + "num_gpus: -1 (expected: >= 0)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replace(
        "startup_timeout_s: 900", "num_gpus: 1")))
        .hasMessageStartingWith(base + "env: CUDA_VISIBLE_DEVICES with num_gpus 1 (expected: "
            + "one of them");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(DESIGN_EXAMPLE.replace(
        "ttft_ms: 20", "num_gpus: 1")))
        .as("a simulated engine runs in the node's JVM")
        .hasMessageStartingWith(
            "applications[0].llm_configs[0].engine_config.num_gpus: unknown field");
  }

  @Test
  void engineFieldsOfTheOtherTypeAreUnknown() {
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(PROCESS.replace(
        "startup_timeout_s: 900", "ttft_ms: 5")))
        .hasMessageStartingWith(
            "applications[0].llm_configs[0].engine_config.ttft_ms: unknown field");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(DESIGN_EXAMPLE.replace(
        "ttft_ms: 20", "command: [x]")))
        .hasMessageStartingWith(
            "applications[0].llm_configs[0].engine_config.command: unknown field");
  }

  @Test
  void malformedYamlIsAnError() {
    assertThatThrownBy(() -> ApplicationsConfigParser.parse("applications: [ {"))
        .hasMessageStartingWith("application config is not valid YAML/JSON");
  }

  @Test
  void malformedJsonSaysWhereAndNothingOfTheParser() {
    assertThatThrownBy(() -> ApplicationsConfigParser.parse("{\"applications\": [}"))
        .hasMessage("application config is not valid YAML/JSON: Unexpected close marker '}': "
            + "expected ']' (line 1, column 19)");
  }

  private static final String AUTOSCALED = """
      applications:
        - name: llm
          llm_configs:
            - model_loading_config: {model_id: sim}
              deployment_config:
                autoscaling_config: {min_replicas: 2, max_replicas: 6, upscale_delay_s: 5,
                                     smoothing_factor: 0.5, downscale_smoothing_factor: 0.25}
      """;

  @Test
  void autoscalingTakesRayServesFieldsAndDefaults() {
    DeploymentConfig deployment = ApplicationsConfigParser.parse(AUTOSCALED).applications()
        .get(0).llmConfigs().get(0).deployment();
    AutoscalingConfig autoscaling = deployment.autoscaling();

    assertThat(autoscaling.enabled()).isTrue();
    assertThat(autoscaling.minReplicas()).isEqualTo(2);
    assertThat(autoscaling.maxReplicas()).isEqualTo(6);
    assertThat(autoscaling.initialReplicas()).as("defaults to min").isEqualTo(2);
    assertThat(deployment.numReplicas()).as("starts at the initial count").isEqualTo(2);
    assertThat(autoscaling.targetOngoingRequests()).isEqualTo(2.0);
    assertThat(autoscaling.upscaleDelayS()).isEqualTo(5);
    assertThat(autoscaling.downscaleDelayS()).isEqualTo(600);
    assertThat(autoscaling.lookBackPeriodS()).isEqualTo(30);
    assertThat(autoscaling.upscaleSmoothingFactor()).isEqualTo(0.5);
    assertThat(autoscaling.downscaleSmoothingFactor()).isEqualTo(0.25);
  }

  @Test
  void autoscalingMistakesAreNamed() {
    String base = "applications[0].llm_configs[0].deployment_config.";
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(AUTOSCALED.replace(
        "deployment_config:", "deployment_config:\n          num_replicas: 3")))
        .hasMessage(base + "autoscaling_config: set together with num_replicas (expected: one "
            + "of them)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(AUTOSCALED.replace(
        "max_replicas: 6", "max_replicas: 1")))
        .hasMessage(base + "autoscaling_config.max_replicas: 1 (expected: >= min_replicas 2)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(AUTOSCALED.replace(
        "min_replicas: 2", "min_replicas: 0")))
        .hasMessage(base + "autoscaling_config.min_replicas: 0 (expected: >= 1)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(AUTOSCALED.replace(
        "upscale_delay_s: 5", "upscale_delay: 5")))
        .hasMessageStartingWith(base + "autoscaling_config.upscale_delay: unknown field");
  }

  @Test
  void aPatchIsACountOrAnAutoscalingConfigNeverBoth() {
    assertThat(ApplicationsConfigParser.parsePatch("{\"num_replicas\": 4}").numReplicas())
        .isEqualTo(4);
    assertThat(ApplicationsConfigParser.parsePatch("autoscaling_config: {max_replicas: 3}")
        .autoscaling().maxReplicas()).isEqualTo(3);
    assertThatThrownBy(() -> ApplicationsConfigParser.parsePatch("{\"num_replicas\": -1}"))
        .hasMessage("num_replicas: -1 (expected: >= 0)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parsePatch(
        "{\"num_replicas\": 1, \"autoscaling_config\": {}}"))
        .hasMessageStartingWith("num_replicas and autoscaling_config: both set");
    assertThatThrownBy(() -> ApplicationsConfigParser.parsePatch("{}"))
        .hasMessageStartingWith("deployment patch: empty");
    assertThatThrownBy(() -> ApplicationsConfigParser.parsePatch("{\"replicas\": 2}"))
        .hasMessageStartingWith("replicas: unknown field");
  }

  @Test
  void aPatchThatIsNoObjectSaysWhatItIsInTheWordsOfAnEmptyOne() {
    assertThatThrownBy(() -> ApplicationsConfigParser.parsePatch("null"))
        .hasMessage("deployment patch: empty (expected: num_replicas or autoscaling_config)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parsePatch("[]"))
        .hasMessage("deployment patch: array (expected: an object with num_replicas or "
            + "autoscaling_config)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parsePatch("4"))
        .hasMessage("deployment patch: number (expected: an object with num_replicas or "
            + "autoscaling_config)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse("[]"))
        .hasMessage("application config: array (expected: an object with applications: [...])");
    assertThatThrownBy(() -> ApplicationsConfigParser.parsePatch(
        "{\"num_replicas\": 99999999999999999999}"))
        .hasMessage("num_replicas: 99999999999999999999 (expected: an integer from 0 to "
            + "2147483647)");
  }
}
