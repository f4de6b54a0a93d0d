package dev.sluice.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.http.ClusterToken;
import dev.sluice.deploy.haproxy.HaproxyConfig;
import dev.sluice.deploy.haproxy.RenderSettings;
import dev.sluice.deploy.haproxy.RouterAddresses;
import dev.sluice.deploy.haproxy.HaproxyTimeouts;
import dev.sluice.ingress.IngressSettings;
import dev.sluice.ingress.edge.ApiKeys;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice haproxy render}: HAProxy as a data plane in front of the live replicas. */
@Command(name = "haproxy", mixinStandardHelpOptions = true,
    description = "HAProxy as a second data plane in front of the same replicas and router.",
    subcommands = HaproxyCommand.Render.class)
final class HaproxyCommand {

  @Command(name = "render", mixinStandardHelpOptions = true,
      description = "Print an haproxy.cfg for the replicas RUNNING now (read from the controller "
          + "API) and write the Lua routing action it loads.")
  static final class Render implements Callable<Integer> {
    @Option(names = "--address", paramLabel = "URL",
        defaultValue = "${env:SLUICE_ADDRESS:-http://127.0.0.1:8265}",
        description = "The controller API (env SLUICE_ADDRESS; default ${DEFAULT-VALUE}).")
    String address;

    @Spec CommandSpec spec;

    @Option(names = "--bind", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:8080",
        description = "Where HAProxy listens (default ${DEFAULT-VALUE}).")
    String bind;

    @Option(names = "--router", paramLabel = "HOST:PORT[,HOST:PORT...]",
        defaultValue = "127.0.0.1:8500",
        description = "The router's POST /internal/route (default ${DEFAULT-VALUE}). Give every "
            + "control node's: each reaches the router wherever it runs, and one that refuses "
            + "the connection is passed over for the next.")
    String router;

    @Option(names = "--ingress", paramLabel = "HOST:PORT",
        description = "An ingress to hand a completion to whose model HAProxy could not read "
            + "(beyond the 16 KiB of the body it buffers) where an application has several "
            + "models; without, such a request gets 400 naming model.")
    String ingress;

    @Option(names = "--route-timeout", paramLabel = "SECONDS", defaultValue = "5",
        description = "How long the Lua action waits for the router (default ${DEFAULT-VALUE}).")
    double routeTimeout;

    @Option(names = "--lua", paramLabel = "FILE", defaultValue = "sluice_route.lua",
        description = "Where to write the Lua action the config loads, with HAProxy's error "
            + "pages (sluice_error_<status>.http) beside it (default ${DEFAULT-VALUE}).")
    Path lua;

    @Override
    public Integer call() throws IOException {
      JsonNode status = ApiClient.fromEnvironment(address)
          .send("GET", "/api/applications", null, null);
      URI bindAt = hostPort("--bind", bind);
      List<URI> routers = RouterAddresses.parse("--router", router);
      URI routerAt = routers.get(0);
      // The token, session header, API keys, body limit and timeouts, as a node with the same
      // environment reads them.
      Config config = ConfigFactory.load();
      ApiKeys keys = IngressSettings.fromConfig(config).apiKeys();
      RenderSettings settings = new RenderSettings(bindAt.getHost(),
          bindAt.getPort(), RouterAddresses.host(routerAt), routerAt.getPort(), routeTimeout,
          ClusterToken.fromConfig(config).secret(),
          config.getString("sluice.ingress.session-header"), routes(status))
          .withApiKeys(keys.enabled(), keys.hexDigests())
          .withModels(models(status))
          .withMaxRequestBytes(config.getBytes("sluice.ingress.max-request-bytes"))
          .withTimeouts(HaproxyTimeouts.fromIngress(config))
          .withMoreRouters(routers.subList(1, routers.size()).stream()
              .map(RouterAddresses::hostPort).toList());
      if (ingress != null) {
        URI ingressAt = hostPort("--ingress", ingress);
        settings = settings.withIngress(new java.net.InetSocketAddress(ingressAt.getHost(),
            ingressAt.getPort()));
      }
      HaproxyConfig.writeFiles(lua, settings.timeouts());
      PrintWriter out = spec.commandLine().getOut();
      out.print(HaproxyConfig.render(settings, runningReplicas(status), lua));
      out.flush();
      return 0;
    }
  }

  private HaproxyCommand() {}

  static URI hostPort(String option, String value) {
    URI uri = URI.create("tcp://" + value);
    if (uri.getHost() == null || uri.getPort() <= 0) {
      throw new IllegalArgumentException(option + ": '" + value + "' (expected HOST:PORT)");
    }
    return uri;
  }

  /** The RUNNING replicas with an endpoint, from {@code GET /api/applications}. */
  static List<HaproxyConfig.Replica> runningReplicas(JsonNode status) {
    List<HaproxyConfig.Replica> replicas = new ArrayList<>();
    for (JsonNode app : status.path("applications")) {
      for (JsonNode deployment : app.path("deployments")) {
        for (JsonNode replica : deployment.path("replicas")) {
          String endpoint = replica.path("endpoint").asText("");
          if (replica.path("state").asText().equals("RUNNING") && !endpoint.isEmpty()) {
            URI uri = URI.create(endpoint);
            // An external engine's completions go to it directly, as from the ingress.
            URI engine = URI.create(replica.path("engine_endpoint").asText(endpoint));
            replicas.add(new HaproxyConfig.Replica(replica.path("replica_id").asText(),
                uri.getHost(), engine.getPort(), uri.getPort()));
          }
        }
      }
    }
    return replicas;
  }

  /** Each application's models. */
  static Map<String, List<String>> models(JsonNode status) {
    Map<String, List<String>> models = new TreeMap<>();
    for (JsonNode app : status.path("applications")) {
      List<String> ids = new ArrayList<>();
      app.path("deployments").forEach(deployment -> ids.add(deployment.path("model_id").asText()));
      models.put(app.path("name").asText(), ids);
    }
    return models;
  }

  /** Every application by its route prefix. */
  static Map<String, String> routes(JsonNode status) {
    Map<String, String> routes = new TreeMap<>();
    for (JsonNode app : status.path("applications")) {
      routes.put(app.path("route_prefix").asText("/"), app.path("name").asText());
    }
    return routes;
  }
}
