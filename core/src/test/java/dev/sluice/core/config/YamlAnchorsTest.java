package dev.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** YAML anchors, aliases and merge keys in an application config, read as PyYAML reads them. */
class YamlAnchorsTest {

  @Test
  void anAliasIsACopyOfItsAnchorsValue() {
    ApplicationsConfig config = ApplicationsConfigParser.parse("""
        applications:
          - name: &app llm
            route_prefix: /
            llm_configs:
              - model_loading_config: {model_id: small}
                engine_config: &engine {type: simulated, ttft_ms: 7, itl_ms: 3}
              - model_loading_config: {model_id: *app}
                engine_config: *engine
        """);

    LlmConfig second = config.applications().get(0).llmConfigs().get(1);
    assertThat(second.modelId()).as("a scalar alias: the anchored value, not the anchor's name")
        .isEqualTo("llm");
    assertThat(second.engine().ttftMs()).isEqualTo(7);
    assertThat(second.engine().itlMs()).isEqualTo(3);
  }

  @Test
  void aMergeKeyAddsTheFieldsTheMappingDoesNotSet() {
    ApplicationsConfig config = ApplicationsConfigParser.parse("""
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: a}
                deployment_config: &defaults {num_replicas: 2, max_ongoing_requests: 16}
              - model_loading_config: {model_id: b}
                deployment_config:
                  num_replicas: 3
                  <<: *defaults
              - model_loading_config: {model_id: c}
                deployment_config:
                  <<: [{num_replicas: 5}, *defaults]
        """);

    DeploymentConfig b = config.applications().get(0).llmConfigs().get(1).deployment();
    assertThat(b.numReplicas()).as("a key set beside the merge wins").isEqualTo(3);
    assertThat(b.maxOngoingRequests()).isEqualTo(16);
    DeploymentConfig c = config.applications().get(0).llmConfigs().get(2).deployment();
    assertThat(c.numReplicas()).as("the first merged mapping wins").isEqualTo(5);
    assertThat(c.maxOngoingRequests()).isEqualTo(16);
  }

  @Test
  void anAliasOfNoAnchorOrOfItselfIsRefused() {
    assertThatThrownBy(() -> ApplicationsConfigParser.parse("""
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: a}
                engine_config: *engine
        """))
        .isInstanceOf(ConfigException.class)
        .hasMessage("application config is not valid YAML/JSON: found undefined alias engine "
            + "(line 5, column 24)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse("applications: &loop [*loop]"))
        .as("an alias inside its own anchor").isInstanceOf(ConfigException.class)
        .hasMessage("applications[0]: an alias inside the value it names (expected: a value "
            + "that does not contain itself)");
  }

  @Test
  void aliasesThatWouldCopyABillionValuesAreRefused() {
    StringBuilder bomb = new StringBuilder("applications:\n  - name: llm\n    llm_configs:\n"
        + "      - model_loading_config: {model_id: a}\n        deployment_config:\n"
        + "          request_router_config:\n            request_router_kwargs:\n"
        + "              l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int level = 1; level <= 9; level++) {
      bomb.append("              l").append(level).append(": &l").append(level).append(" [")
          .append(String.join(", ", java.util.Collections.nCopies(9, "*l" + (level - 1))))
          .append("]\n");
    }

    assertThatThrownBy(() -> ApplicationsConfigParser.parse(bomb.toString()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("request_router_kwargs.l")
        .hasMessageContaining(": YAML aliases copy more than 100000 values in all");
  }

  @Test
  void aKeyGivenTwiceIsRefusedInYamlAndJson() {
    assertThatThrownBy(() -> ApplicationsConfigParser.parse("""
        applications:
          - name: llm
            name: other
            llm_configs: [{model_loading_config: {model_id: a}}]
        """))
        .isInstanceOf(ConfigException.class)
        .hasMessage("applications[0].name: given twice (expected: each key once)");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse("""
        {"applications": [{"name": "llm", "name": "other",
          "llm_configs": [{"model_loading_config": {"model_id": "a"}}]}]}"""))
        .isInstanceOf(ConfigException.class).hasMessageContaining("Duplicate field 'name'");
    assertThatThrownBy(() -> ApplicationsConfigParser.parse("""
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: a}
                deployment_config: {<<: {num_replicas: 1}, <<: {num_replicas: 2}}
        """))
        .isInstanceOf(ConfigException.class)
        .hasMessage("applications[0].llm_configs[0].deployment_config.<<: given twice "
            + "(expected: each key once)");
  }

  @Test
  void aMergeOfSomethingThatIsNotAMappingNamesTheMergeKey() {
    assertThatThrownBy(() -> ApplicationsConfigParser.parse("""
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: a}
                deployment_config: {<<: 3}
        """))
        .isInstanceOf(ConfigException.class)
        .hasMessage("applications[0].llm_configs[0].deployment_config.<<: expected a mapping "
            + "to merge, or a list of them (e.g. <<: *defaults)");
  }

  @Test
  void oneDocumentOnlyThoughItMayStartWithItsMarker() {
    String app = """
        applications:
          - name: llm
            llm_configs: [{model_loading_config: {model_id: a}}]
        """;
    assertThat(ApplicationsConfigParser.parse("---\n" + app).applications()).hasSize(1);
    assertThatThrownBy(() -> ApplicationsConfigParser.parse(app + "---\n" + app))
        .isInstanceOf(ConfigException.class)
        .hasMessage("application config: more than one YAML document (expected: one; remove "
            + "the '---' that starts the next)");
  }
}
