package dev.sluice.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.config.ApplicationsConfigWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sluice deploy | scale | status | config | delete}: the controller API from the command
 * line. Each but {@code config} prints the status afterwards (a table, or the API's JSON with
 * {@code --json}); an error prints the API's message and exits 1.
 */
final class ApiCommands {

  private ApiCommands() {}

  /** The options every API command takes. */
  static final class Target {
    @Option(names = "--address", paramLabel = "URL",
        defaultValue = "${env:SLUICE_ADDRESS:-http://127.0.0.1:8265}",
        description = "The controller API (env SLUICE_ADDRESS; default ${DEFAULT-VALUE}).")
    String address;

    @Option(names = "--json", description = "Print the API's JSON instead of a table.")
    boolean json;

    @Spec(Spec.Target.MIXEE)
    picocli.CommandLine.Model.CommandSpec spec;

    ApiClient client() {
      return ApiClient.fromEnvironment(address);
    }

    int print(JsonNode status) {
      PrintWriter out = spec.commandLine().getOut();
      if (!json && !status.has("applications") && status.has("message")) {
        out.println(status.get("message").asText());  // 202: stored, its status not read yet
      } else {
        out.print(json ? status.toPrettyString() + "\n" : StatusTable.render(status));
      }
      out.flush();
      return 0;
    }
  }

  @Command(name = "deploy", mixinStandardHelpOptions = true,
      description = "Make FILE (YAML or JSON, the applications config) the whole desired state: "
          + "apps not in it are deleted, changed ones updated, unchanged ones untouched.")
  static final class Deploy implements Callable<Integer> {
    @Mixin Target target;

    @Parameters(paramLabel = "FILE", description = "The applications config.")
    Path file;

    @Override
    public Integer call() {
      String body;
      try {
        body = Files.readString(file);
      } catch (IOException e) {
        throw new IllegalArgumentException("FILE: " + file
            + " (expected: a readable YAML or JSON file; " + e.getClass().getSimpleName() + ")");
      }
      String type = file.toString().endsWith(".json") ? "application/json" : "application/yaml";
      return target.print(target.client().send("PUT", "/api/applications", body, type));
    }
  }

  @Command(name = "scale", mixinStandardHelpOptions = true,
      description = "Set a deployment's replica count (autoscaling, if any, is turned off).")
  static final class Scale implements Callable<Integer> {
    @Mixin Target target;

    @Parameters(index = "0", paramLabel = "APP") String app;

    @Parameters(index = "1", paramLabel = "DEPLOYMENT") String deployment;

    @Parameters(index = "2", paramLabel = "N", description = "Replicas (>= 0).") int replicas;

    @Override
    public Integer call() {
      return target.print(target.client().send("PATCH", "/api/applications/" + encode(app)
          + "/deployments/" + encode(deployment), "{\"num_replicas\":" + replicas + "}",
          "application/json"));
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Applications, deployments and replicas, as the controller sees them.")
  static final class Status implements Callable<Integer> {
    @Mixin Target target;

    @Override
    public Integer call() {
      return target.print(target.client().send("GET", "/api/applications", null, null));
    }
  }

  @Command(name = "config", mixinStandardHelpOptions = true,
      description = "Print the desired state as stored (every field, defaults filled in), as "
          + "YAML that sluice deploy takes back: edit it and deploy it (Ray's serve config).")
  static final class Config implements Callable<Integer> {
    @Mixin Target target;

    @Parameters(paramLabel = "APP", arity = "0..*",
        description = "Only these applications (default: all).")
    List<String> apps = List.of();

    @Override
    public Integer call() {
      JsonNode stored = target.client().send("GET", "/api/config", null, null);
      Map<String, JsonNode> deployed = new LinkedHashMap<>();
      stored.path("applications").forEach(app -> deployed.put(app.path("name").asText(), app));
      ObjectNode config = JsonNodeFactory.instance.objectNode();
      ArrayNode list = config.putArray("applications");
      for (String app : apps.isEmpty() ? deployed.keySet() : apps) {
        if (!deployed.containsKey(app)) {
          throw new IllegalArgumentException("APP: '" + app + "' (expected: one of "
              + (deployed.isEmpty() ? "none: nothing is deployed" : deployed.keySet()) + ")");
        }
        list.add(deployed.get(app));
      }
      PrintWriter out = target.spec.commandLine().getOut();
      out.print(target.json ? config.toPrettyString() + "\n"
          : ApplicationsConfigWriter.yaml(config));
      out.flush();
      return 0;
    }
  }

  @Command(name = "delete", mixinStandardHelpOptions = true,
      description = "Delete an application: its replicas are drained and stopped.")
  static final class Delete implements Callable<Integer> {
    @Mixin Target target;

    @Parameters(paramLabel = "APP") String app;

    @Override
    public Integer call() {
      return target.print(target.client().send("DELETE", "/api/applications/" + encode(app),
          null, null));
    }
  }

  private static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
