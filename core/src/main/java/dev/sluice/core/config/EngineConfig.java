package dev.sluice.core.config;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How a replica generates tokens: {@code simulated} (in this JVM) or {@code openai-process} (an
 * external OpenAI-compatible server, e.g. vLLM, run as a child process). The simulated fields
 * are ignored by {@code openai-process} and the process fields by {@code simulated}.
 *
 * @param ttftMs simulated time to first token, milliseconds
 * @param itlMs simulated inter-token latency, milliseconds (0 = as fast as possible)
 * @param defaultMaxTokens output length when a request gives no {@code max_tokens}
 * @param maxModelLen upper bound for {@code max_tokens}
 * @param maxNumSeqs requests the engine generates for at once (its batch); more wait
 * @param kvCacheBlocks KV-cache capacity in blocks of {@link #BLOCK_TOKENS} tokens, shared by the
 *     prefix cache (LRU eviction)
 * @param command the server's command line; its arguments may hold {@link #PORT_PLACEHOLDER} and
 *     {@link #MODEL_PLACEHOLDER} (empty for {@code simulated})
 * @param healthPath the path answering 200 once the server can serve, starting with '/'
 * @param port the port the server listens on, or {@link #AUTO_PORT} for a free loopback port
 * @param env environment variables added to the server's (this node's environment plus these)
 * @param startupTimeoutS how long the server may take to answer 200 on its health path, seconds
 * @param metricsPath the path of the server's Prometheus metrics, starting with '/'
 * @param numGpus GPUs each replica's server gets for itself from its node's
 *     ({@code sluice.replica.gpus}), named to it in {@code CUDA_VISIBLE_DEVICES}; 0 = none
 */
public record EngineConfig(
    String type, int ttftMs, int itlMs, int defaultMaxTokens, int maxModelLen, int maxNumSeqs,
    int kvCacheBlocks, List<String> command, String healthPath, int port, Map<String, String> env,
    int startupTimeoutS, String metricsPath, int numGpus) {

  /** Tokens per KV-cache block (vLLM's default). */
  public static final int BLOCK_TOKENS = 16;

  public static final String SIMULATED = "simulated";
  public static final String OPENAI_PROCESS = "openai-process";

  /** The engine types, in the order error messages list them. */
  public static final List<String> TYPES = List.of(SIMULATED, OPENAI_PROCESS);

  /** In {@link #command}'s arguments: replaced by the server's port. */
  public static final String PORT_PLACEHOLDER = "{port}";
  /** In {@link #command}'s arguments: replaced by the model id. */
  public static final String MODEL_PLACEHOLDER = "{model}";
  /** In an {@code openai-process} command: the interface the replica's endpoints bind to. */
  public static final String HOST_PLACEHOLDER = "{host}";
  /**
   * In an {@code openai-process} env value only: the cluster token
   * ({@code sluice.core.cluster-token}), e.g. {@code VLLM_API_KEY: "{cluster_token}"}, so that the
   * server admits only what comes through an ingress (which sends it as a bearer token).
   */
  public static final String CLUSTER_TOKEN_PLACEHOLDER = "{cluster_token}";

  /** {@link #port} meaning "pick a free loopback port at each start" ({@code port: auto}). */
  public static final int AUTO_PORT = 0;
  public static final String DEFAULT_HEALTH_PATH = "/health";
  public static final String DEFAULT_METRICS_PATH = "/metrics";
  /** vLLM loading a large model can take minutes. */
  public static final int DEFAULT_STARTUP_TIMEOUT_S = 600;
  /** The variable that tells a CUDA server (vLLM, SGLang, llama.cpp) which GPUs it may use. */
  public static final String GPU_VARIABLE = "CUDA_VISIBLE_DEVICES";

  public EngineConfig {
    Objects.requireNonNull(type, "type");
    command = List.copyOf(Objects.requireNonNull(command, "command"));
    Objects.requireNonNull(healthPath, "healthPath");
    env = Map.copyOf(Objects.requireNonNull(env, "env"));
    Objects.requireNonNull(metricsPath, "metricsPath");
    if (port < AUTO_PORT || port > 65535) {
      throw new IllegalArgumentException("port: " + port + " (expected: 0 (auto) or 1..65535)");
    }
    if (numGpus < 0) {
      throw new IllegalArgumentException("numGpus: " + numGpus + " (expected: >= 0)");
    }
  }

  /** A {@code simulated} engine's config: no process fields. */
  public EngineConfig(String type, int ttftMs, int itlMs, int defaultMaxTokens, int maxModelLen,
      int maxNumSeqs, int kvCacheBlocks) {
    this(type, ttftMs, itlMs, defaultMaxTokens, maxModelLen, maxNumSeqs, kvCacheBlocks, List.of(),
        DEFAULT_HEALTH_PATH, AUTO_PORT, Map.of(), DEFAULT_STARTUP_TIMEOUT_S,
        DEFAULT_METRICS_PATH, 0);
  }

  public static EngineConfig simulated(int ttftMs, int itlMs, int defaultMaxTokens) {
    return new EngineConfig(SIMULATED, ttftMs, itlMs, defaultMaxTokens, 32768, 256, 4096);
  }

  /**
   * An {@code openai-process} engine's config with the defaults of every other field: health on
   * {@code /health}, metrics on {@code /metrics}, 600 s to start, 128 tokens by default.
   */
  public static EngineConfig openAiProcess(List<String> command, int port) {
    return new EngineConfig(OPENAI_PROCESS, 20, 5, 128, 32768, 256, 4096, command,
        DEFAULT_HEALTH_PATH, port, Map.of(), DEFAULT_STARTUP_TIMEOUT_S, DEFAULT_METRICS_PATH, 0);
  }

  /** This config with another health path, environment, startup timeout and metrics path. */
  public EngineConfig withProcess(String healthPath, Map<String, String> env, int startupTimeoutS,
      String metricsPath) {
    return new EngineConfig(type, ttftMs, itlMs, defaultMaxTokens, maxModelLen, maxNumSeqs,
        kvCacheBlocks, command, healthPath, port, env, startupTimeoutS, metricsPath, numGpus);
  }

  /** This config with {@code numGpus} GPUs per replica. */
  public EngineConfig withGpus(int numGpus) {
    return new EngineConfig(type, ttftMs, itlMs, defaultMaxTokens, maxModelLen, maxNumSeqs,
        kvCacheBlocks, command, healthPath, port, env, startupTimeoutS, metricsPath, numGpus);
  }
}
