package dev.sluice.core.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads and validates an application config (YAML or JSON, Ray Serve's snake_case shape). Every
 * error names the offending field by its path, e.g.
 * {@code applications[0].llm_configs[0].deployment_config.num_replicas: -1 (expected: >= 0)}.
 * Unknown fields are errors, not silently ignored.
 */
public final class ApplicationsConfigParser {

  private static final ObjectMapper YAML = new YAMLMapper();
  private static final ObjectMapper JSON = new ObjectMapper();

  private ApplicationsConfigParser() {}

  public static ApplicationsConfig parseFile(Path file) {
    try {
      return parse(Files.readString(file));
    } catch (IOException e) {
      throw new ConfigException("cannot read application config " + file + ": " + e.getMessage(), e);
    }
  }

  /** Parses YAML (and therefore JSON, which YAML includes). */
  public static ApplicationsConfig parse(String text) {
    JsonNode root;
    try {
      String trimmed = text.stripLeading();
      root = trimmed.startsWith("{") ? JSON.readTree(text) : YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new ConfigException("application config is not valid YAML/JSON: "
          + e.getOriginalMessage(), e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw new ConfigException("application config is empty (expected: {applications: [...]})");
    }
    return applications(new Node(root, ""));
  }

  private static ApplicationsConfig applications(Node root) {
    root.allowOnly("applications");
    List<ApplicationConfig> apps = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<String> prefixes = new HashSet<>();
    List<Node> items = root.list("applications", true);
    for (Node app : items) {
      ApplicationConfig config = application(app);
      if (!names.add(config.name())) {
        throw app.error("name", "'" + config.name() + "' (expected: unique application names)");
      }
      if (!prefixes.add(config.routePrefix())) {
        throw app.error("route_prefix",
            "'" + config.routePrefix() + "' (expected: unique route prefixes)");
      }
      apps.add(config);
    }
    return new ApplicationsConfig(apps);
  }

  private static ApplicationConfig application(Node app) {
    app.allowOnly("name", "route_prefix", "llm_configs");
    String name = app.string("name", "default");
    if (!name.matches("[A-Za-z0-9_.-]+")) {
      throw app.error("name", "'" + name + "' (expected: letters, digits, '_', '.', '-')");
    }
    String prefix = app.string("route_prefix", "/");
    if (!prefix.startsWith("/")) {
      throw app.error("route_prefix", "'" + prefix + "' (expected: starts with '/')");
    }
    List<LlmConfig> llms = new ArrayList<>();
    Set<String> deployments = new HashSet<>();
    for (Node llm : app.list("llm_configs", true)) {
      LlmConfig config = llm(llm);
      if (!deployments.add(config.deploymentName())) {
        throw llm.error("deployment_config.name",
            "'" + config.deploymentName() + "' (expected: unique deployment names per app)");
      }
      llms.add(config);
    }
    if (llms.isEmpty()) {
      throw app.error("llm_configs", "[] (expected: at least one model)");
    }
    return new ApplicationConfig(name, prefix, llms);
  }

  private static LlmConfig llm(Node llm) {
    llm.allowOnly("model_loading_config", "engine_config", "deployment_config");
    Node loading = llm.object("model_loading_config", true);
    loading.allowOnly("model_id");
    String modelId = loading.string("model_id", null);
    LlmConfig config = new LlmConfig(
        modelId, engine(llm.object("engine_config", false)),
        deployment(llm.object("deployment_config", false)));
    // The model id names the deployment when deployment_config.name is not set, and a replica id
    // (app#deployment#unique-id) cannot hold a '#'.
    if (config.deploymentName().contains("#")) {
      throw loading.error("model_id",
          "'" + modelId + "' (expected: no '#', or a deployment_config.name without one)");
    }
    return config;
  }

  private static EngineConfig engine(Node engine) {
    engine.allowOnly("type", "ttft_ms", "itl_ms", "default_max_tokens", "max_model_len",
        "max_num_seqs", "kv_cache_blocks");
    String type = engine.string("type", EngineConfig.SIMULATED);
    if (!type.equals(EngineConfig.SIMULATED)) {
      throw engine.error("type", "'" + type + "' (expected: simulated)");
    }
    int maxModelLen = engine.integer("max_model_len", 32768, 1);
    int defaultMaxTokens = engine.integer("default_max_tokens", 128, 1);
    if (defaultMaxTokens > maxModelLen) {
      throw engine.error("default_max_tokens",
          defaultMaxTokens + " (expected: <= max_model_len " + maxModelLen + ")");
    }
    return new EngineConfig(type, engine.integer("ttft_ms", 20, 0),
        engine.integer("itl_ms", 5, 0), defaultMaxTokens, maxModelLen,
        engine.integer("max_num_seqs", 256, 1), engine.integer("kv_cache_blocks", 4096, 1));
  }

  private static DeploymentConfig deployment(Node deployment) {
    deployment.allowOnly("name", "num_replicas", "max_ongoing_requests",
        "graceful_shutdown_timeout_s", "health_check_period_s", "health_check_timeout_s",
        "request_router_config");
    String name = deployment.string("name", "");
    if (name.contains("#")) {
      throw deployment.error("name", "'" + name + "' (expected: no '#')");
    }
    Node router = deployment.object("request_router_config", false);
    router.allowOnly("request_router_class", "request_router_kwargs");
    Map<String, Object> kwargs = router.map("request_router_kwargs");
    return new DeploymentConfig(
        name,
        deployment.integer("num_replicas", 1, 0),
        deployment.integer("max_ongoing_requests", 64, 1),
        deployment.number("graceful_shutdown_timeout_s", 20, 0),
        deployment.number("health_check_period_s", 10, 0.1),
        deployment.number("health_check_timeout_s", 30, 0.1),
        new RequestRouterConfig(
            router.string("request_router_class", RequestRouterConfig.DEFAULT), kwargs));
  }
}
