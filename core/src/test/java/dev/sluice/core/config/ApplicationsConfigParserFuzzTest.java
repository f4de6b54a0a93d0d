package dev.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Any text as an application config (YAML or JSON): only a {@link ConfigException} may come out;
 * an accepted config has valid, unique names, counts and limits in range, finite durations and
 * plain kwargs, and reads the same once written back ({@link ApplicationsConfigWriter}) as JSON
 * and as YAML.
 *
 * <p>Seeds: {@code ApplicationsConfigParserFuzzTestInputs/} beside this class in
 * {@code src/test/resources}.
 */
class ApplicationsConfigParserFuzzTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @FuzzTest(maxDuration = "20s")
  void acceptsOnlyValidConfigsAndRefusesTheRestWithAConfigException(byte[] input)
      throws IOException {
    String text = new String(input, StandardCharsets.UTF_8);
    ApplicationsConfig config;
    try {
      config = ApplicationsConfigParser.parse(text);
    } catch (ConfigException e) {
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    assertValid(config);
    assertKwargsIntegersFitTheirType(text);
    JsonNode tree = ApplicationsConfigWriter.tree(config);
    assertThat(ApplicationsConfigParser.parse(tree.toString())).as("written as %s", tree)
        .isEqualTo(config);
    String yaml = ApplicationsConfigWriter.yaml(tree);
    assertThat(ApplicationsConfigParser.parse(yaml)).as("written as %s", yaml).isEqualTo(config);
  }

  private static void assertValid(ApplicationsConfig config) {
    Set<String> names = new HashSet<>();
    Set<String> prefixes = new HashSet<>();
    for (ApplicationConfig app : config.applications()) {
      assertThat(app.name()).matches("[A-Za-z0-9_.-]+");
      assertThat(names.add(app.name())).as("unique app name %s", app.name()).isTrue();
      assertThat(app.routePrefix()).startsWith("/");
      assertThat(prefixes.add(app.routePrefix())).isTrue();
      assertThat(app.llmConfigs()).isNotEmpty();
      Set<String> deployments = new HashSet<>();
      for (LlmConfig llm : app.llmConfigs()) {
        assertThat(llm.modelId()).isNotBlank();
        String deployment = llm.deploymentName();
        assertThat(deployment).as("deployment name").isNotBlank().doesNotContain("#");
        assertThat(deployments.add(deployment)).isTrue();
        EngineConfig engine = llm.engine();
        assertThat(engine.type()).isIn(EngineConfig.TYPES);
        if (engine.type().equals(EngineConfig.OPENAI_PROCESS)) {
          assertThat(engine.command()).isNotEmpty();
          assertThat(engine.command().get(0)).isNotBlank();
          assertThat(engine.port()).isBetween(0, 65535);
          assertThat(engine.startupTimeoutS()).isPositive();
          assertThat(engine.healthPath()).startsWith("/");
          assertThat(engine.metricsPath()).startsWith("/");
        }
        assertThat(engine.ttftMs()).isNotNegative();
        assertThat(engine.itlMs()).isNotNegative();
        assertThat(engine.maxModelLen()).isPositive();
        assertThat(engine.defaultMaxTokens()).isBetween(1, engine.maxModelLen());
        assertThat(engine.maxNumSeqs()).isPositive();
        assertThat(engine.kvCacheBlocks()).isPositive();
        DeploymentConfig d = llm.deployment();
        assertThat(d.numReplicas()).isNotNegative();
        assertThat(d.maxOngoingRequests()).isPositive();
        assertThat(d.gracefulShutdownTimeoutS()).isFinite().isGreaterThanOrEqualTo(0);
        assertThat(d.healthCheckPeriodS()).isFinite().isGreaterThanOrEqualTo(0.1);
        assertThat(d.healthCheckTimeoutS()).isFinite().isGreaterThanOrEqualTo(0.1);
        assertThat(d.requestRouter().requestRouterClass()).isNotBlank();
        d.requestRouter().kwargs().values().forEach(ApplicationsConfigParserFuzzTest::assertPlain);
      }
    }
  }

  /** Kwargs are plain JSON values: strings, longs, finite doubles, booleans, lists, maps. */
  private static void assertPlain(Object value) {
    assertThat(value).isNotNull();
    if (value instanceof List<?> list) {
      list.forEach(ApplicationsConfigParserFuzzTest::assertPlain);
    } else if (value instanceof Map<?, ?> map) {
      map.forEach((key, item) -> {
        assertThat(key).isInstanceOf(String.class);
        assertPlain(item);
      });
    } else if (value instanceof Double number) {
      assertThat(number).isFinite();
    } else {
      assertThat(value).isInstanceOfAny(String.class, Long.class, Boolean.class);
    }
  }

  /**
   * An integer kwarg is read as a long: one too large for it must be refused, never wrapped
   * around. Checked on the text read again, as the parser reads it.
   */
  private static void assertKwargsIntegersFitTheirType(String text) throws IOException {
    JsonNode root = text.stripLeading().startsWith("{") ? JSON.readTree(text)
        : YamlTree.read(text, "application config");
    for (JsonNode app : root.path("applications")) {
      for (JsonNode llm : app.path("llm_configs")) {
        assertIntegersFitALong(llm.path("deployment_config").path("request_router_config")
            .path("request_router_kwargs"));
      }
    }
  }

  private static void assertIntegersFitALong(JsonNode node) {
    if (node.isIntegralNumber()) {
      assertThat(node.canConvertToLong()).as("kwarg %s fits a long", node).isTrue();
    }
    node.forEach(ApplicationsConfigParserFuzzTest::assertIntegersFitALong);
  }
}
