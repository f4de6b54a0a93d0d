package dev.sluice.deploy;

import dev.sluice.controller.ReplicaLimit;
import dev.sluice.core.config.ApplicationConfig;
import dev.sluice.core.config.ApplicationsConfig;
import dev.sluice.core.config.ApplicationsConfigParser;
import dev.sluice.core.config.ConfigException;
import dev.sluice.core.config.LlmConfig;
import dev.sluice.router.spi.RequestRouters;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Loads the application config for a control node and validates what only the wiring module can:
 * that every deployment's request router exists and accepts its kwargs.
 */
final class AppConfigs {

  static final String DEFAULT_RESOURCE = "/default-app.yaml";

  private AppConfigs() {}

  /** The file's config (or the default app), checked; at most {@code maxReplicas} each. */
  static ApplicationsConfig load(Optional<Path> file, int maxReplicas) {
    ApplicationsConfig config;
    if (file.isPresent()) {
      if (!Files.isRegularFile(file.get())) {
        throw new ConfigException("--config: " + file.get() + " (expected: a readable YAML or "
            + "JSON file)");
      }
      config = ApplicationsConfigParser.parseFile(file.get());
    } else {
      config = ApplicationsConfigParser.parse(defaultApp());
    }
    validateRouters(config);
    ReplicaLimit.check(config, maxReplicas);
    return config;
  }

  static String defaultApp() {
    try (InputStream in = AppConfigs.class.getResourceAsStream(DEFAULT_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(DEFAULT_RESOURCE + " missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every deployment's request router exists and takes its kwargs (a ConfigException if not). */
  static void validateRouters(ApplicationsConfig config) {
    for (int a = 0; a < config.applications().size(); a++) {
      ApplicationConfig app = config.applications().get(a);
      for (int l = 0; l < app.llmConfigs().size(); l++) {
        LlmConfig llm = app.llmConfigs().get(l);
        try {
          RequestRouters.validate(llm.deployment().requestRouter().requestRouterClass(),
              llm.deployment().requestRouter().kwargs());
        } catch (IllegalArgumentException e) {
          String message = e.getMessage();
          String field = message.startsWith("request_router_") ? message
              : "request_router_kwargs." + message;
          throw new ConfigException("applications[" + a + "].llm_configs[" + l
              + "].deployment_config.request_router_config." + field, e);
        }
      }
    }
  }
}
