package dev.sluice.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.TreeMap;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;

/**
 * Writes a config back in the shape {@link ApplicationsConfigParser} reads (Ray Serve's
 * snake_case), every field explicit, defaults included: what {@code GET /api/applications}
 * shows as an application's {@code deployed_app_config} and {@code sluice config} prints. Parsing
 * what it writes gives the same config again.
 */
public final class ApplicationsConfigWriter {

  private static final ObjectMapper JSON = new ObjectMapper();

  private ApplicationsConfigWriter() {}

  public static ObjectNode tree(ApplicationsConfig config) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode apps = root.putArray("applications");
    config.applications().forEach(app -> apps.add(tree(app)));
    return root;
  }

  public static ObjectNode tree(ApplicationConfig app) {
    ObjectNode node = JSON.createObjectNode();
    node.put("name", app.name());
    node.put("route_prefix", app.routePrefix());
    ArrayNode llms = node.putArray("llm_configs");
    for (LlmConfig llm : app.llmConfigs()) {
      ObjectNode item = llms.addObject();
      item.putObject("model_loading_config").put("model_id", llm.modelId());
      engine(item.putObject("engine_config"), llm.engine());
      deployment(item.putObject("deployment_config"), llm.deployment());
    }
    return node;
  }

  /**
   * The tree as block-style YAML, which the parser reads back as it was. A string with control
   * characters is written escaped in double quotes: SnakeYAML's default, {@code !!binary}, is
   * read back as bytes, which no field takes. So is one with a line break other than {@code \n}
   * (CR, NEL, LS, PS): in a block scalar YAML reads each of them as {@code \n}.
   */
  public static String yaml(JsonNode tree) {
    DumperOptions options = new DumperOptions();
    options.setNonPrintableStyle(DumperOptions.NonPrintableStyle.ESCAPE);
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    options.setIndicatorIndent(2);
    options.setIndentWithIndicator(true);
    options.setWidth(100);
    return new Yaml(new QuotingRepresenter(options), options)
        .dump(JSON.convertValue(tree, Object.class));
  }

  /** Double quotes (escapes) for strings whose line breaks a block scalar would not keep. */
  private static final class QuotingRepresenter extends Representer {

    QuotingRepresenter(DumperOptions options) {
      super(options);
    }

    @Override
    protected Node representScalar(Tag tag, String value, DumperOptions.ScalarStyle style) {
      boolean breaks = Tag.STR.equals(tag) && value.chars().anyMatch(c -> c == '\r'
          || c == '\u0085' || c == '\u2028' || c == '\u2029');
      return super.representScalar(tag, value,
          breaks ? DumperOptions.ScalarStyle.DOUBLE_QUOTED : style);
    }
  }

  private static void engine(ObjectNode node, EngineConfig engine) {
    node.put("type", engine.type());
    if (engine.type().equals(EngineConfig.OPENAI_PROCESS)) {
      ArrayNode command = node.putArray("command");
      engine.command().forEach(command::add);
      if (engine.port() == EngineConfig.AUTO_PORT) {
        node.put("port", "auto");
      } else {
        node.put("port", engine.port());
      }
      node.put("health_path", engine.healthPath());
      node.put("metrics_path", engine.metricsPath());
      node.put("startup_timeout_s", engine.startupTimeoutS());
      node.put("num_gpus", engine.numGpus());
      ObjectNode env = node.putObject("env");
      new TreeMap<>(engine.env()).forEach(env::put);
    } else {
      node.put("ttft_ms", engine.ttftMs());
      node.put("itl_ms", engine.itlMs());
      node.put("max_num_seqs", engine.maxNumSeqs());
      node.put("kv_cache_blocks", engine.kvCacheBlocks());
    }
    node.put("default_max_tokens", engine.defaultMaxTokens());
    node.put("max_model_len", engine.maxModelLen());
  }

  private static void deployment(ObjectNode node, DeploymentConfig deployment) {
    if (!deployment.name().isEmpty()) {
      node.put("name", deployment.name());
    }
    AutoscalingConfig autoscaling = deployment.autoscaling();
    if (autoscaling.enabled()) {
      autoscaling(node.putObject("autoscaling_config"), autoscaling);
    } else {
      node.put("num_replicas", deployment.numReplicas());
    }
    node.put("max_ongoing_requests", deployment.maxOngoingRequests());
    node.put("graceful_shutdown_timeout_s", deployment.gracefulShutdownTimeoutS());
    node.put("health_check_period_s", deployment.healthCheckPeriodS());
    node.put("health_check_timeout_s", deployment.healthCheckTimeoutS());
    ObjectNode router = node.putObject("request_router_config");
    router.put("request_router_class", deployment.requestRouter().requestRouterClass());
    router.set("request_router_kwargs",
        JSON.valueToTree(new TreeMap<>(deployment.requestRouter().kwargs())));
  }

  private static void autoscaling(ObjectNode node, AutoscalingConfig config) {
    node.put("min_replicas", config.minReplicas());
    node.put("max_replicas", config.maxReplicas());
    node.put("initial_replicas", config.initialReplicas());
    node.put("target_ongoing_requests", config.targetOngoingRequests());
    node.put("upscale_delay_s", config.upscaleDelayS());
    node.put("downscale_delay_s", config.downscaleDelayS());
    node.put("look_back_period_s", config.lookBackPeriodS());
    node.put("metrics_interval_s", config.metricsIntervalS());
    node.put("upscale_smoothing_factor", config.upscaleSmoothingFactor());
    node.put("downscale_smoothing_factor", config.downscaleSmoothingFactor());
  }
}
