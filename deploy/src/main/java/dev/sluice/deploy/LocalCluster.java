package dev.sluice.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice local --nodes N}: N node processes on loopback, as a real multi-node cluster
 * runs. The first {@code K} are {@code control,ingress} nodes (ingress, API and router ports
 * counted up from the given ones), the others {@code replica} nodes with replica port ranges of
 * their own. Every node seeds from the control nodes. Output of each node goes to its own log
 * file. SIGTERM or Ctrl-C stops every node gracefully (each drains its ingress, then leaves);
 * a node still running after its drain time is killed. The nodes also stop by themselves if
 * this process dies.
 */
final class LocalCluster {

  /** One node process to run. */
  record Plan(String name, String roles, int remoting, int ingress, int api, int router,
      int metrics, String replicaPorts) {

    boolean control() {
      return roles.contains("control");
    }
  }

  private static final int REPLICA_PORTS_PER_NODE = 100;
  private static final int FIRST_REPLICA_PORT = 30000;

  private final List<Plan> plans;
  private final Optional<Path> config;
  private final Duration drain;
  private final Path logs;
  private final List<Process> processes = new ArrayList<>();
  private final int haproxyPort;

  /** {@code haproxyPort}: HAProxy beside the first control node's ingress (-1: none). */
  LocalCluster(List<Plan> plans, Optional<Path> config, Duration drain, int haproxyPort)
      throws IOException {
    this.plans = plans;
    this.haproxyPort = haproxyPort;
    this.config = config;
    this.drain = drain;
    this.logs = Files.createTempDirectory("sluice-local-");
  }

  /** The nodes for {@code nodes} processes, {@code controlNodes} of them control nodes. */
  static List<Plan> plan(int nodes, int controlNodes, int ingress, int api, int router,
      int remoting, int metrics) {
    if (nodes < 2) {
      throw new IllegalArgumentException("--nodes: " + nodes + " (expected: 2 or more; 1 is "
          + "the one-JVM default without --nodes)");
    }
    if (controlNodes < 1 || controlNodes >= nodes) {
      throw new IllegalArgumentException("--control-nodes: " + controlNodes + " (expected: 1 .. "
          + (nodes - 1) + ", so that at least one replica node remains)");
    }
    if (remoting <= 0) {
      throw new IllegalArgumentException("--remoting-port: " + remoting + " (a multi-node "
          + "cluster needs fixed remoting ports: nodes find each other by them)");
    }
    List<Plan> plans = new ArrayList<>();
    for (int i = 0; i < controlNodes; i++) {
      plans.add(new Plan("control-" + (i + 1), "control,ingress", remoting + i, ingress + i,
          api < 0 ? -1 : api + i, router < 0 ? -1 : router + i, metrics < 0 ? -1 : metrics + i,
          ""));
    }
    for (int j = 0; j < nodes - controlNodes; j++) {
      int first = FIRST_REPLICA_PORT + j * REPLICA_PORTS_PER_NODE;
      plans.add(new Plan("replica-" + (j + 1), "replica", remoting + controlNodes + j, -1, -1,
          -1, metrics < 0 ? -1 : metrics + controlNodes + j,
          first + "-" + (first + REPLICA_PORTS_PER_NODE - 1)));
    }
    return plans;
  }

  /** Starts every node, waits until the cluster serves, prints where everything is, and waits. */
  int run(PrintStream out) throws Exception {
    for (Plan plan : plans) {
      Map<String, Integer> ports = new LinkedHashMap<>();
      ports.put("cluster remoting of " + plan.name(), plan.remoting());
      ports.put("ingress of " + plan.name(), plan.ingress());
      ports.put("controller API of " + plan.name(), plan.api());
      ports.put("router endpoint of " + plan.name(), plan.router());
      ports.put("metrics of " + plan.name(), plan.metrics());
      ports.put("HAProxy of " + plan.name(), plan == plans.get(0) ? haproxyPort : -1);
      Ports.requireFree("127.0.0.1", ports);
    }
    Thread stopper = new Thread(this::stopAll, "sluice-local-stop");
    Runtime.getRuntime().addShutdownHook(stopper);
    out.println("Starting " + plans.size() + " Sluice node processes on loopback (logs in "
        + logs + ")...");
    for (Plan plan : plans) {
      processes.add(start(plan));
    }
    Plan first = plans.get(0);
    try {
      awaitServing(first, out);
    } catch (RuntimeException e) {
      out.println("The cluster did not come up: " + e.getMessage());
      out.println("See the node logs in " + logs);
      return 1;
    }
    banner(out);
    for (int i = 0; i < processes.size(); i++) {
      int code = processes.get(i).waitFor();
      out.println("Node " + plans.get(i).name() + " exited (" + code + ")");
    }
    return 0;
  }

  private Process start(Plan plan) throws IOException {
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(arg -> !arg.startsWith("-agentlib") && !arg.startsWith("-javaagent")).toList());
    if (!plan.replicaPorts().isEmpty()) {
      command.add("-Dsluice.replica.port-range=" + plan.replicaPorts());
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"),
        SluiceCli.class.getName(), "node", "--roles", plan.roles(), "--host", "127.0.0.1",
        "--port", String.valueOf(plan.remoting()), "--seed-nodes", seeds(),
        "--exit-with-parent", "--metrics-port", String.valueOf(plan.metrics())));
    if (plan.control()) {
      command.addAll(List.of("--ingress-port", String.valueOf(plan.ingress()), "--api-port",
          String.valueOf(plan.api()), "--router-port", String.valueOf(plan.router())));
      config.ifPresent(file -> command.addAll(List.of("--config", file.toString())));
    }
    if (plan == plans.get(0) && haproxyPort >= 0) {
      command.addAll(List.of("--haproxy-port", String.valueOf(haproxyPort)));
    }
    Path log = logs.resolve(plan.name() + ".log");
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
        .start();
  }

  private String seeds() {
    return String.join(",", plans.stream().filter(Plan::control)
        .map(plan -> "127.0.0.1:" + plan.remoting()).toList());
  }

  /** Until every node is up and every deployment has its replicas running (2 minutes at most). */
  private void awaitServing(Plan first, PrintStream out) throws InterruptedException {
    if (first.api() < 0) {
      return;
    }
    ApiClient api = ApiClient.fromEnvironment(apiScheme() + "127.0.0.1:" + first.api());
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    String last = "";
    while (true) {
      for (int i = 0; i < processes.size(); i++) {
        if (!processes.get(i).isAlive()) {
          throw new IllegalStateException("node " + plans.get(i).name() + " exited ("
              + processes.get(i).exitValue() + "); its log: "
              + logs.resolve(plans.get(i).name() + ".log"));
        }
      }
      String progress = progress(api);
      if (progress.isEmpty()) {
        return;
      }
      if (!progress.equals(last)) {
        out.println("  ... " + progress);
        last = progress;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not serving after 2 minutes (" + progress + ")");
      }
      Thread.sleep(250);
    }
  }

  /** What the cluster still waits for; empty when it serves. */
  private String progress(ApiClient api) {
    try {
      JsonNode cluster = api.send("GET", "/api/cluster", null, null);
      long up = 0;
      for (JsonNode member : cluster.path("members")) {
        up += member.path("status").asText().equals("Up") ? 1 : 0;
      }
      if (up < plans.size()) {
        return up + " of " + plans.size() + " nodes up";
      }
      JsonNode status = api.send("GET", "/api/applications", null, null);
      for (JsonNode app : status.path("applications")) {
        for (JsonNode deployment : app.path("deployments")) {
          if (deployment.path("current_replicas").asInt()
              < deployment.path("target_replicas").asInt()) {
            return deployment.path("name").asText() + ": "
                + deployment.path("current_replicas").asInt() + " of "
                + deployment.path("target_replicas").asInt() + " replicas running";
          }
        }
      }
      return "";
    } catch (IllegalStateException notYet) {
      return "waiting for the controller API";
    }
  }

  private void banner(PrintStream out) {
    Plan first = plans.get(0);
    String ingress = "http://127.0.0.1:" + first.ingress();
    out.println();
    out.println("Sluice local is ready: " + plans.size() + " node processes.");
    for (int i = 0; i < plans.size(); i++) {
      Plan plan = plans.get(i);
      StringBuilder line = new StringBuilder("  " + plan.name() + " (" + plan.roles() + ", pid "
          + processes.get(i).pid() + ", remoting 127.0.0.1:" + plan.remoting());
      if (plan.control()) {
        line.append(", ingress :").append(plan.ingress());
        if (plan.api() >= 0) {
          line.append(", API :").append(plan.api());
        }
        if (i == 0 && haproxyPort >= 0) {
          line.append(", HAProxy :").append(haproxyPort);
        }
      } else {
        line.append(", replica ports ").append(plan.replicaPorts());
      }
      if (plan.metrics() >= 0) {
        line.append(", metrics :").append(plan.metrics());
      }
      out.println(line.append(")  log: ").append(logs.resolve(plan.name() + ".log")));
    }
    out.println("  Singletons (controller, llm-router, capacity-queue) run on the oldest "
        + "control node; any ingress routes through them.");
    out.println();
    out.println("Try:");
    out.println("  curl -N " + ingress + "/v1/chat/completions -H 'content-type: "
        + "application/json' -d '{\"messages\":[{\"role\":\"user\",\"content\":\"Hello!\"}],"
        + "\"stream\":true}'");
    if (first.api() >= 0) {
      String base = apiScheme() + "127.0.0.1:" + first.api();
      String address = first.api() == 8265 && apiScheme().equals("http://") ? ""
          : " --address " + base;
      out.println("  ./sluice status" + address + "   # replicas and the nodes they run on");
      out.println("  curl " + base + "/api/cluster   # members, reachability, where the "
          + "singletons run");
      out.println("  open " + base + "/   # the live dashboard");
    }
    out.println("  kill -9 <pid of a replica node>   # its replicas are replaced on the others");
    out.println();
    out.println("Ctrl-C stops every node (each drains its ingress first).");
    out.flush();
  }

  /**
   * Stops the replica nodes first (together), then the control nodes one at a time, youngest
   * first: each leaves a cluster that can still move its singletons and confirm its leave, which
   * takes a second or two instead of every node waiting for the others' timeouts. Each node gets
   * SIGTERM (it drains its ingress, then leaves) and its drain time; one still running then is
   * killed.
   */
  private void stopAll() {
    System.err.println("Sluice local: stopping " + processes.size() + " node processes...");
    List<Process> replicas = new ArrayList<>();
    List<Process> controls = new ArrayList<>();
    for (int i = 0; i < processes.size(); i++) {
      (plans.get(i).control() ? controls : replicas).add(processes.get(i));
    }
    stop(replicas);
    for (int i = controls.size() - 1; i >= 0; i--) {
      stop(List.of(controls.get(i)));
    }
    System.err.println("Sluice local: every node stopped.");
  }

  private void stop(List<Process> group) {
    group.forEach(Process::destroy);
    long end = System.nanoTime() + drain.plusSeconds(15).toNanos();
    for (Process process : group) {
      try {
        long left = Math.max(0, end - System.nanoTime());
        if (!process.waitFor(left, TimeUnit.NANOSECONDS)) {
          System.err.println("Sluice local: node pid " + process.pid() + " still running; "
              + "killing it");
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }

  /** The nodes serve their API over HTTPS when they are given a TLS folder for it. */
  private static String apiScheme() {
    String dir = System.getenv("SLUICE_API_TLS_DIR");
    return dir == null || dir.isBlank() ? "http://" : "https://";
  }
}
