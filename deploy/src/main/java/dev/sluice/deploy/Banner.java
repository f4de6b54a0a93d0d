package dev.sluice.deploy;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import java.io.PrintStream;

/** What {@code sluice local} prints once it is ready: the mode, where things run, what to try. */
final class Banner {

  private Banner() {}

  static void print(PrintStream out, SluiceNode node) {
    String host = node.system().settings().config().getString("sluice.ingress.host");
    String ingress = "http://" + host + ":" + node.ingressPort().orElseThrow();
    String model = node.ingressView().all().stream().flatMap(s -> s.modelIds().stream())
        .findFirst().orElse("sluice-sim");
    out.println();
    out.println("Sluice local is ready.");
    out.println(node.system().settings().config().getBoolean("sluice.ingress.direct-streaming")
        ? "  Direct streaming: ON (the LLMRouter only picks a replica; tokens flow "
            + "replica -> ingress -> client)"
        : "  Direct streaming: OFF (relayed path: the router reserves a slot, tokens come back "
            + "through the replica actor)");
    out.println("  Singletons (role control) on " + node.system().address()
        + ": controller, llm-router, capacity-queue");
    out.println("  Ingress (OpenAI API): " + ingress);
    node.relayedIngressPort().ifPresent(port -> out.println("  Relayed-path ingress: http://"
        + host + ":" + port + " (the control group: same API, tokens relayed through actors)"));
    node.haproxy().ifPresent(plane -> out.println("  HAProxy data plane:   http://"
        + node.system().settings().config().getString("sluice.haproxy.host") + ":"
        + node.system().settings().config().getInt("sluice.haproxy.port")
        + " (same API; HAProxy pins each request to the router's pick)"));
    node.haproxy().flatMap(plane -> plane.metricsUrl()).ifPresent(url ->
        out.println("  HAProxy's metrics:    " + url));
    node.routerPort().ifPresent(port -> out.println("  Router endpoint:      http://"
        + node.system().settings().config().getString("sluice.router.http.host") + ":" + port
        + "/internal/route"));
    String api = node.system().settings().config().getString("sluice.controller.api.tls-dir")
        .isBlank() ? "http://" : "https://";
    node.apiPort().ifPresent(port -> out.println("  Controller API:       " + api
        + node.system().settings().config().getString("sluice.controller.api.host") + ":" + port
        + "/api/applications"));
    node.apiPort().ifPresent(port -> out.println("  Dashboard:            " + api
        + node.system().settings().config().getString("sluice.controller.api.host") + ":" + port
        + "/"));
    node.metricsPort().ifPresent(port -> out.println("  Metrics (Prometheus): http://"
        + node.system().settings().config().getString("sluice.metrics.host") + ":" + port
        + "/metrics"));
    for (ReplicaSet set : node.ingressView().all()) {
      for (ReplicaInfo replica : set.replicas()) {
        out.println("  Replica " + replica.id() + " at http://" + replica.authority());
      }
    }
    out.println();
    out.println("Try:");
    out.println("  curl -N " + ingress + "/v1/chat/completions -H 'content-type: application/json' "
        + "-d '{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":"
        + "\"Hello!\"}],\"stream\":true}'");
    out.println("  curl " + ingress + "/v1/models");
    out.println("  ./sluice bench --url " + ingress + " --duration 30s   # load to watch on the "
        + "dashboard");
    node.apiPort().ifPresent(port -> {
      String address = port == 8265 && api.equals("http://") ? "" : " --address " + api
          + node.system().settings().config().getString("sluice.controller.api.host") + ":"
          + port;
      out.println("  ./sluice status" + address + "          # the replicas, as the controller "
          + "sees them");
      String app = node.ingressView().all().stream().findFirst()
          .map(s -> s.deployment().app() + " " + s.deployment().name()).orElse("llm sluice-sim");
      out.println("  ./sluice scale " + app + " 4" + address + "   # scale through the API");
    });
    out.println();
    out.println("Ctrl-C stops Sluice cleanly.");
    out.flush();
  }
}
