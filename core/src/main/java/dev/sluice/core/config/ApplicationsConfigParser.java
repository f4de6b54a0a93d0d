package dev.sluice.core.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.http.JsonSyntaxErrors;
import dev.sluice.core.openai.ModelField;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads and validates an application config (YAML or JSON, Ray Serve's snake_case shape). Every
 * error names the offending field by its path, e.g.
 * {@code applications[0].llm_configs[0].deployment_config.num_replicas: -1 (expected: >= 0)}.
 * Unknown fields are errors, not silently ignored.
 */
public final class ApplicationsConfigParser {

  /** JSON as YAML reads it: a key given twice is refused, not silently the last one. */
  private static final ObjectMapper JSON = new ObjectMapper(JsonSyntaxErrors.factory())
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  /**
   * A route prefix as Ray Serve takes it (starts with '/', no trailing '/' but the root), in
   * characters that need no escaping in a URL, a log line or HAProxy's config.
   */
  private static final java.util.regex.Pattern ROUTE_PREFIX =
      java.util.regex.Pattern.compile("/|(/[A-Za-z0-9._~-]+)+");

  private static final java.util.regex.Pattern APP_NAME =
      java.util.regex.Pattern.compile("[A-Za-z0-9_.-]+");

  private ApplicationsConfigParser() {}

  /** Whether {@code prefix} is a route prefix this parser takes. */
  public static boolean isRoutePrefix(String prefix) {
    return ROUTE_PREFIX.matcher(prefix).matches();
  }

  /** Whether {@code name} is an application name this parser takes. */
  public static boolean isAppName(String name) {
    return APP_NAME.matcher(name).matches();
  }

  public static ApplicationsConfig parseFile(Path file) {
    try {
      return parse(Files.readString(file));
    } catch (IOException e) {
      throw new ConfigException("cannot read application config " + file + ": " + e.getMessage(),
          e);
    }
  }

  /** Parses YAML (and therefore JSON, which YAML includes). */
  public static ApplicationsConfig parse(String text) {
    return applications(new Node(tree(text, "application config", "applications: [...]"), ""));
  }

  /**
   * A change to one deployment ({@code PATCH /api/applications/{app}/deployments/{name}}): a new
   * {@code num_replicas}, or a new {@code autoscaling_config}, never both.
   */
  public static DeploymentPatch parsePatch(String text) {
    Node patch = new Node(tree(text, "deployment patch", "num_replicas or autoscaling_config"),
        "");
    patch.allowOnly("num_replicas", "autoscaling_config");
    boolean count = patch.has("num_replicas");
    boolean autoscaling = patch.has("autoscaling_config");
    if (count == autoscaling) {
      throw new ConfigException(count
          ? "num_replicas and autoscaling_config: both set (expected: one of them)"
          : "deployment patch: empty (expected: num_replicas or autoscaling_config)");
    }
    return count
        ? DeploymentPatch.numReplicas(patch.integer("num_replicas", 1, 0))
        : DeploymentPatch.autoscaling(autoscaling(patch.object("autoscaling_config", true)));
  }

  private static JsonNode tree(String text, String what, String expected) {
    JsonNode root;
    try {
      String trimmed = text.stripLeading();
      root = trimmed.startsWith("{") ? JSON.readTree(text) : YamlTree.read(text, what);
    } catch (JsonProcessingException e) {
      throw new ConfigException(what + " is not valid YAML/JSON: "
          + JsonSyntaxErrors.describe(e), e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw new ConfigException(what + ": empty (expected: " + expected + ")");
    }
    if (!root.isObject()) {
      throw new ConfigException(what + ": " + root.getNodeType().name().toLowerCase(Locale.ROOT)
          + " (expected: an object with " + expected + ")");
    }
    return root;
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
    if (!isAppName(name)) {
      throw app.error("name", "'" + name + "' (expected: letters, digits, '_', '.', '-')");
    }
    String prefix = app.string("route_prefix", "/");
    if (!isRoutePrefix(prefix)) {
      throw app.error("route_prefix", "'" + prefix + "' (expected: '/' or a path such as "
          + "'/chat' or '/team-a/chat': segments of letters, digits, '.', '_', '~', '-', and no "
          + "trailing '/')");
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
    if (modelId.length() > ModelField.MAX_CHARS) {
      throw loading.error("model_id", modelId.length() + " characters (expected: at most "
          + ModelField.MAX_CHARS + ")");
    }
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
    String type = engine.string("type", EngineConfig.SIMULATED);
    if (!EngineConfig.TYPES.contains(type)) {
      throw engine.error("type",
          "'" + type + "' (expected: one of " + String.join(", ", EngineConfig.TYPES) + ")");
    }
    if (type.equals(EngineConfig.OPENAI_PROCESS)) {
      engine.allowOnly("type", "command", "health_path", "port", "env", "startup_timeout_s",
          "metrics_path", "default_max_tokens", "max_model_len", "num_gpus");
    } else {
      engine.allowOnly("type", "ttft_ms", "itl_ms", "default_max_tokens", "max_model_len",
          "max_num_seqs", "kv_cache_blocks");
    }
    int maxModelLen = engine.integer("max_model_len", 32768, 1);
    int defaultMaxTokens = engine.integer("default_max_tokens", 128, 1);
    if (defaultMaxTokens > maxModelLen) {
      throw engine.error("default_max_tokens",
          defaultMaxTokens + " (expected: <= max_model_len " + maxModelLen + ")");
    }
    EngineConfig config = new EngineConfig(type, engine.integer("ttft_ms", 20, 0),
        engine.integer("itl_ms", 5, 0), defaultMaxTokens, maxModelLen,
        engine.integer("max_num_seqs", 256, 1), engine.integer("kv_cache_blocks", 4096, 1));
    return type.equals(EngineConfig.OPENAI_PROCESS) ? process(engine, config) : config;
  }

  /** The fields of an {@code openai-process} engine (a server run as a child process). */
  private static EngineConfig process(Node engine, EngineConfig base) {
    List<String> command = engine.strings("command", true, "a non-empty list of strings");
    if (command.isEmpty() || command.get(0).isBlank()) {
      throw engine.error("command", command + " (expected: a non-empty list of strings, the "
          + "first one the program)");
    }
    for (String arg : command) {
      if (arg.indexOf('\0') >= 0) {
        throw engine.error("command", "an argument holds a NUL character (expected: none)");
      }
      if (arg.contains(EngineConfig.CLUSTER_TOKEN_PLACEHOLDER)) {
        throw engine.error("command", EngineConfig.CLUSTER_TOKEN_PLACEHOLDER + " in an argument "
            + "(expected: only in env values: a command line is visible to every user of the "
            + "machine)");
      }
    }
    int port = engine.integerOrWord("port", "auto", EngineConfig.AUTO_PORT,
        EngineConfig.AUTO_PORT, 1, 65535);
    if (port == EngineConfig.AUTO_PORT
        && command.stream().noneMatch(arg -> arg.contains(EngineConfig.PORT_PLACEHOLDER))) {
      throw engine.error("command", "no " + EngineConfig.PORT_PLACEHOLDER + " placeholder "
          + "(expected: one when port is auto, to tell the server its port; or a fixed port)");
    }
    Map<String, String> env = engine.stringMap("env");
    for (Map.Entry<String, String> variable : env.entrySet()) {
      String name = variable.getKey();
      if (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0
          || variable.getValue().indexOf('\0') >= 0) {
        throw engine.error("env", "'" + name + "' (expected: names without '=', no NUL "
            + "characters)");
      }
    }
    int numGpus = engine.integer("num_gpus", 0, 0);
    if (numGpus > 0 && env.containsKey(EngineConfig.GPU_VARIABLE)) {
      throw engine.error("env", EngineConfig.GPU_VARIABLE + " with num_gpus " + numGpus
          + " (expected: one of them: num_gpus gives each replica GPUs of its own from the "
          + "node's sluice.replica.gpus and sets " + EngineConfig.GPU_VARIABLE + ")");
    }
    return new EngineConfig(base.type(), base.ttftMs(), base.itlMs(), base.defaultMaxTokens(),
        base.maxModelLen(), base.maxNumSeqs(), base.kvCacheBlocks(), command,
        path(engine, "health_path", EngineConfig.DEFAULT_HEALTH_PATH), port, env,
        engine.integer("startup_timeout_s", EngineConfig.DEFAULT_STARTUP_TIMEOUT_S, 1),
        path(engine, "metrics_path", EngineConfig.DEFAULT_METRICS_PATH), numGpus);
  }

  /** A path of a URL on the server: starts with '/', and makes a valid URI. */
  private static String path(Node engine, String name, String defaultValue) {
    String path = engine.string(name, defaultValue);
    boolean valid = path.startsWith("/");
    try {
      valid = valid && URI.create("http://127.0.0.1" + path).getRawPath() != null;
    } catch (IllegalArgumentException e) {
      valid = false;
    }
    if (!valid) {
      throw engine.error(name, "'" + path + "' (expected: a URL path starting with '/')");
    }
    return path;
  }

  private static DeploymentConfig deployment(Node deployment) {
    deployment.allowOnly("name", "num_replicas", "autoscaling_config", "max_ongoing_requests",
        "graceful_shutdown_timeout_s", "health_check_period_s", "health_check_timeout_s",
        "request_router_config");
    if (deployment.has("num_replicas") && deployment.has("autoscaling_config")) {
      throw deployment.error("autoscaling_config",
          "set together with num_replicas (expected: one of them)");
    }
    AutoscalingConfig autoscaling = deployment.has("autoscaling_config")
        ? autoscaling(deployment.object("autoscaling_config", true)) : AutoscalingConfig.OFF;
    String name = deployment.string("name", "");
    if (name.contains("#")) {
      throw deployment.error("name", "'" + name + "' (expected: no '#')");
    }
    Node router = deployment.object("request_router_config", false);
    router.allowOnly("request_router_class", "request_router_kwargs");
    Map<String, Object> kwargs = router.map("request_router_kwargs");
    return new DeploymentConfig(
        name,
        autoscaling.enabled() ? autoscaling.initialReplicas()
            : deployment.integer("num_replicas", 1, 0),
        deployment.integer("max_ongoing_requests", 64, 1),
        deployment.number("graceful_shutdown_timeout_s", 20, 0),
        deployment.number("health_check_period_s", 10, 0.1),
        deployment.number("health_check_timeout_s", 30, 0.1),
        new RequestRouterConfig(
            router.string("request_router_class", RequestRouterConfig.DEFAULT), kwargs),
        autoscaling);
  }

  /** Ray Serve's {@code autoscaling_config}, with its defaults. */
  private static AutoscalingConfig autoscaling(Node config) {
    config.allowOnly("min_replicas", "max_replicas", "initial_replicas",
        "target_ongoing_requests", "upscale_delay_s", "downscale_delay_s", "look_back_period_s",
        "metrics_interval_s", "smoothing_factor", "upscale_smoothing_factor",
        "downscale_smoothing_factor");
    int min = config.integer("min_replicas", 1, 1);
    int max = config.integer("max_replicas", Math.max(min, 1), 1);
    if (max < min) {
      throw config.error("max_replicas", max + " (expected: >= min_replicas " + min + ")");
    }
    int initial = config.integer("initial_replicas", min, 1);
    if (initial < min || initial > max) {
      throw config.error("initial_replicas", initial + " (expected: between min_replicas "
          + min + " and max_replicas " + max + ")");
    }
    double smoothing = positive(config, "smoothing_factor", 1.0);
    return new AutoscalingConfig(true, min, max, initial,
        positive(config, "target_ongoing_requests", 2.0),
        config.number("upscale_delay_s", 30, 0),
        config.number("downscale_delay_s", 600, 0),
        positive(config, "look_back_period_s", 30),
        positive(config, "metrics_interval_s", 10),
        positive(config, "upscale_smoothing_factor", smoothing),
        positive(config, "downscale_smoothing_factor", smoothing));
  }

  private static double positive(Node config, String name, double defaultValue) {
    double value = config.number(name, defaultValue, 0);
    if (value <= 0) {
      throw config.error(name, value + " (expected: > 0)");
    }
    return value;
  }
}
