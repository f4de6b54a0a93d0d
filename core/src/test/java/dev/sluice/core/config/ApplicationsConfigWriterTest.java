package dev.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class ApplicationsConfigWriterTest {

  /** Every kind of field, none at its default. */
  private static final String CONFIG = """
      applications:
        - name: chat
          route_prefix: /chat
          llm_configs:
            - model_loading_config: {model_id: "1.0"}
              engine_config: {type: simulated, ttft_ms: 7, itl_ms: 0, default_max_tokens: 9,
                              max_model_len: 99, max_num_seqs: 3, kv_cache_blocks: 11}
              deployment_config:
                name: small
                num_replicas: 0
                max_ongoing_requests: 5
                graceful_shutdown_timeout_s: 1.5
                health_check_period_s: 0.25
                health_check_timeout_s: 1e10
                request_router_config:
                  request_router_class: consistent-hash
                  request_router_kwargs: {virtual_nodes: 64, nested: {list: [1, "yes", 2.5]}}
            - model_loading_config: {model_id: big}
              engine_config:
                type: openai-process
                command: [vllm, serve, "{model}", --port, "{port}", "--flag=on"]
                port: auto
                env: {HF_HOME: /models, VLLM_API_KEY: "{cluster_token}", EMPTY: "", "NO": "off"}
                health_path: /ready
                metrics_path: /m?x=1
                startup_timeout_s: 900
                num_gpus: 2
                default_max_tokens: 256
                max_model_len: 8192
              deployment_config:
                autoscaling_config:
                  min_replicas: 2
                  max_replicas: 12
                  initial_replicas: 3
                  target_ongoing_requests: 4.5
                  upscale_delay_s: 0
                  downscale_delay_s: 120
                  look_back_period_s: 7
                  metrics_interval_s: 2
                  upscale_smoothing_factor: 0.5
                  downscale_smoothing_factor: 0.25
        - name: other
          llm_configs:
            - model_loading_config: {model_id: fixed-port}
              engine_config: {type: openai-process, command: [server, --port=8080], port: 8080}
      """;

  @Test
  void whatItWritesIsReadBackAsTheSameConfigInJsonAndInYaml() {
    ApplicationsConfig config = ApplicationsConfigParser.parse(CONFIG);
    JsonNode tree = ApplicationsConfigWriter.tree(config);

    assertThat(ApplicationsConfigParser.parse(tree.toString())).isEqualTo(config);
    String yaml = ApplicationsConfigWriter.yaml(tree);
    assertThat(ApplicationsConfigParser.parse(yaml)).as(yaml).isEqualTo(config);
  }

  @Test
  void stringsWithControlCharactersAreWrittenAsEscapedTextNotAsBinary() {
    String config = "{\"applications\": [{\"name\": \"a\", \"llm_configs\": [{"
        + "\"model_loading_config\": {\"model_id\": \"m\\u0007\"}, \"engine_config\": "
        + "{\"type\": \"openai-process\", \"command\": [\"srv\", \"{mo\\u001bl}\", \"{port}\"], "
        + "\"env\": {\"K\": \"tab\\there\\u0001\"}}}]}]}";
    ApplicationsConfig parsed = ApplicationsConfigParser.parse(config);

    String yaml = ApplicationsConfigWriter.yaml(ApplicationsConfigWriter.tree(parsed));

    assertThat(yaml).doesNotContain("!!binary");
    assertThat(ApplicationsConfigParser.parse(yaml)).as(yaml).isEqualTo(parsed);
    assertThat(parsed.applications().get(0).llmConfigs().get(0).engine().command())
        .containsExactly("srv", "{mo\u001bl}", "{port}");
  }

  @Test
  void stringsWithLineBreaksOfEveryKindAreReadBackAsTheyWere() {
    // YAML reads \r, \r\n, NEL, LS and PS in a block scalar as \n: such strings go in double
    // quotes, escaped (the fuzzer found a model id with a NEL written as a literal block).
    for (String text : List.of("st_router_\u0085m", "a\u2028b", "a\u2029b", "a\rb", "a\r\nb",
        "a\nb\n", " lead\n\u0085trail ", "\u0085")) {
      String json = JSON_CONFIG.replace("MODEL", escaped(text)).replace("ARG", escaped(text));
      ApplicationsConfig parsed = ApplicationsConfigParser.parse(json);

      String yaml = ApplicationsConfigWriter.yaml(ApplicationsConfigWriter.tree(parsed));

      assertThat(ApplicationsConfigParser.parse(yaml)).as(yaml).isEqualTo(parsed);
      assertThat(parsed.applications().get(0).llmConfigs().get(0).modelId()).isEqualTo(text);
    }
  }

  private static final String JSON_CONFIG = "{\"applications\": [{\"name\": \"a\", "
      + "\"llm_configs\": [{\"model_loading_config\": {\"model_id\": \"MODEL\"}, "
      + "\"engine_config\": {\"type\": \"openai-process\", \"command\": [\"srv\", \"ARG\", "
      + "\"{port}\"], \"env\": {\"K\": \"ARG\"}}}]}]}";

  private static String escaped(String text) {
    StringBuilder out = new StringBuilder();
    text.chars().forEach(c -> out.append(String.format("\\u%04x", c)));
    return out.toString();
  }

  @Test
  void itWritesEveryFieldWithItsDefaultsInBlockStyle() {
    ApplicationsConfig config = ApplicationsConfigParser.parse(
        "applications: [{name: llm, llm_configs: [{model_loading_config: {model_id: m}}]}]");
    JsonNode app = ApplicationsConfigWriter.tree(config).path("applications").path(0);

    assertThat(app.path("route_prefix").asText()).isEqualTo("/");
    JsonNode llm = app.path("llm_configs").path(0);
    assertThat(llm.path("engine_config").path("type").asText()).isEqualTo("simulated");
    assertThat(llm.path("engine_config").path("ttft_ms").asInt()).isEqualTo(20);
    JsonNode deployment = llm.path("deployment_config");
    assertThat(deployment.has("name")).as("no name: the model id names it").isFalse();
    assertThat(deployment.path("num_replicas").asInt()).isEqualTo(1);
    assertThat(deployment.has("autoscaling_config")).isFalse();
    assertThat(deployment.path("max_ongoing_requests").asInt()).isEqualTo(64);
    assertThat(deployment.path("request_router_config").path("request_router_class").asText())
        .isEqualTo("round-robin");

    String yaml = ApplicationsConfigWriter.yaml(ApplicationsConfigWriter.tree(config));
    assertThat(yaml).startsWith("applications:\n  - name: llm\n    route_prefix: /\n")
        .contains("\n          model_id: m\n").contains("request_router_kwargs: {}\n")
        .doesNotContain("[");
  }
}
