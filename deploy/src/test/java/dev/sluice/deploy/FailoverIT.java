package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.deploy.FaultLoad.Fate;
import dev.sluice.deploy.FaultLoad.Outcome;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A cluster of separate node processes on loopback (three {@code control,ingress} nodes, two
 * {@code replica} nodes) put through the failures it exists to survive, in order: a replica node
 * killed under load, the singletons' node leaving gracefully, then the next one killed. Each
 * step checks what users see (every request that had not started streaming is served, streams
 * already flowing complete or end promptly, a control-plane gap is answered at once) and what the
 * operator sees (same replica ids, nothing restarted, nothing orphaned, desired state intact).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FailoverIT {

  private static final int[] REMOTING = {18801, 18802, 18803};
  private static final int[] INGRESS = {18811, 18812, 18813};
  private static final int[] API = {18821, 18822, 18823};
  private static final int[] ROUTER = {18851, 18852, 18853};
  private static final int REPLICA_NODE_1 = 18804;
  private static final int REPLICA_NODE_2 = 18805;
  private static final int R1_FIRST = 18830;
  private static final int R1_LAST = 18839;
  private static final String SEEDS = "127.0.0.1:18801,127.0.0.1:18802,127.0.0.1:18803";
  private static final int TOKENS = 25;  // 0.5 s streams at 20 ms per token
  private static final int STREAMS = 32;
  /** How long an ingress and the router's HTTP endpoint wait for the router (defaults kept). */
  private static final Duration ROUTE_TIMEOUT = ConfigFactory.defaultReference()
      .getDuration("sluice.ingress.route-timeout");
  private static final Duration ROUTER_ASK_TIMEOUT = ConfigFactory.defaultReference()
      .getDuration("sluice.router.ask-timeout");
  /** What each fault cost, for docs/BENCHMARKS.md (written to target/failover-figures.md). */
  private static final List<String> FIGURES = new java.util.ArrayList<>();

  private static final NodeProcess[] control = new NodeProcess[3];
  private static NodeProcess replicas1;
  private static NodeProcess replicas2;

  @BeforeAll
  static void startCluster() throws Exception {
    Path app = TestNodes.appFile(TestNodes.app(1, 0, 20, 64));
    // The first control node forms the cluster, so it is the oldest: the singletons run there.
    control[0] = NodeProcesses.control(REMOTING[0], SEEDS, INGRESS[0], API[0], ROUTER[0],
        Optional.of(app));
    NodeProcesses.await("the first control node is up", Duration.ofSeconds(60),
        () -> NodeProcesses.members(API[0], "Up") >= 1 ? Optional.of(true) : Optional.empty(),
        control[0]);
    for (int i = 1; i < 3; i++) {
      control[i] = NodeProcesses.control(REMOTING[i], SEEDS, INGRESS[i], API[i], ROUTER[i],
          Optional.empty());
    }
    replicas1 = NodeProcesses.replica(REPLICA_NODE_1, SEEDS, R1_FIRST + "-" + R1_LAST);
    replicas2 = NodeProcesses.replica(REPLICA_NODE_2, SEEDS, "18840-18849");
    // One replica first, the second once the controller sees both replica nodes: placement
    // then puts it on the other node.
    NodeProcesses.await("5 nodes up, both replica nodes known to the controller",
        Duration.ofSeconds(90), () -> NodeProcesses.members(API[0], "Up") == 5
            ? NodeProcesses.get(API[0], "/api/applications")
                .filter(status -> status.path("replica_nodes").asInt() == 2)
            : Optional.empty(), all());
    assertThat(TestNodes.api(API[0], "PATCH", "/api/applications/llm/deployments/sim",
        "{\"num_replicas\": 2}", "application/json").statusCode()).isEqualTo(200);
    NodeProcesses.await("one replica running on each replica node", Duration.ofSeconds(60),
        () -> NodeProcesses.deployment(API[0]).filter(d -> running(d) == 2
            && onNode(d, REPLICA_NODE_1).size() == 1 && onNode(d, REPLICA_NODE_2).size() == 1),
        all());
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (!FIGURES.isEmpty()) {
      String table = "| fault (32 streams, 0.5 s each) | requests after the fault | failed "
          + "before their answer began | streams broken | no request routed for | "
          + "replicas restarted |\n|---|---:|---:|---:|---:|---:|\n" + String.join("\n", FIGURES)
          + "\n";
      java.nio.file.Files.writeString(Path.of("target", "failover-figures.md"), table);
      System.out.println(table);
    }
    for (NodeProcess node : all()) {
      if (node != null) {
        node.close();
      }
    }
  }

  @Test
  @Order(1)
  void aReplicaNodeKilledUnderLoadLosesNoRequestThatHadNotStarted() throws Exception {
    TreeSet<String> dead = onNode(NodeProcesses.deployment(API[0]).orElseThrow(), REPLICA_NODE_2);
    long signalled;
    long kill;
    long replacedAfterNanos;
    long unreachableAfter;
    FaultLoad load = new FaultLoad(INGRESS[1], STREAMS, TOKENS);
    try {
      awaitCompleted(load, 64, 0);
      signalled = System.nanoTime();
      replicas2.process.destroyForcibly();  // SIGKILL
      // "After the kill" counts from the process's end: until the kernel has torn the dying JVM
      // down, its sockets can still take a request (seen in CI-like runs: one sent 27 ms after
      // the signal ended in "connection reset", a request the dying node had).
      replicas2.process.waitFor();
      kill = System.nanoTime();
      NodeProcesses.await("the killed node unreachable", Duration.ofSeconds(20),
          () -> NodeProcesses.get(API[0], "/api/cluster")
              .filter(cluster -> cluster.path("unreachable").asInt() > 0
                  || NodeProcesses.members(API[0], "Up") < 5), all());
      unreachableAfter = System.nanoTime() - kill;
      JsonNode replaced = NodeProcesses.await("a replacement running on the surviving node",
          Duration.ofSeconds(30), () -> NodeProcesses.deployment(API[0]).filter(d ->
              running(d) == 2 && onNode(d, REPLICA_NODE_2).isEmpty()), all());
      Duration replacedAfter = Duration.ofNanos(System.nanoTime() - kill);
      replacedAfterNanos = replacedAfter.toNanos();
      assertThat(NodeProcesses.replicaIds(replaced)).doesNotContainAnyElementsOf(dead);
      assertThat(replacedAfter).as("replacement running").isLessThan(Duration.ofSeconds(20));
      awaitCompleted(load, 64, System.nanoTime());
    } finally {
      load.close();
    }
    // A request whose connect to the live ingress failed never reached Sluice: no fault of
    // its can have lost it. Seen four times in CI-like runs, once a run (the last two 6 and
    // 35 ms after the request started); first thought to come with the killed JVM's teardown,
    // until one came 2.3 s before the kill. (The JDK 17 client's "ConnectException <-
    // ConnectException <- ClosedChannelException" is one failed connect and a retry on the
    // channel it had closed, JDK-8361249, so the first failure's own message is lost.) Cause
    // not found: the ingress never stops listening, its backlog is 1024; loopback may reuse
    // TIME_WAIT ports (tcp_tw_reuse = 2 here). At most one a run after the kill; every request
    // that reached the ingress counts. Before the kill there is no fault to judge: a CI-like run
    // saw all 32 clients' first connects fail together, 2.8 s before it, within 50 ms of each
    // other, and succeed on their retry; those are printed, not held against the failover.
    List<Outcome> notConnected = load.outcomes().stream().filter(FailoverIT::notConnected)
        .toList();
    List<Outcome> beforeFault = notConnected.stream().filter(o -> o.startNanos() < signalled)
        .toList();
    if (!beforeFault.isEmpty()) {
      System.out.println("FailoverIT: connects to the live ingress that failed before the fault:"
          + FaultLoad.timeline(beforeFault, kill));
    }
    assertThat(notConnected.stream().filter(o -> o.startNanos() >= signalled).toList())
        .as("requests after the fault that could not connect to the live ingress, relative to "
            + "the kill:" + FaultLoad.timeline(notConnected, kill)).hasSizeLessThanOrEqualTo(1);
    // A request already sent to the killed replica may have started there: it is never sent
    // again, so it fails, promptly. Every request sent after the kill is served.
    List<Outcome> failed = load.startedAfter(kill, o -> (o.fate() == Fate.REFUSED
        || o.fate() == Fate.FAILED_BEFORE_HEAD) && !notConnected.contains(o));
    assertThat(failed).as("requests started after the kill: routed again, never failed; "
        + "relative to the kill:" + FaultLoad.timeline(failed, kill)).isEmpty();
    for (Outcome inFlight : load.outcomes().stream().filter(o -> (o.fate() == Fate.REFUSED
        || o.fate() == Fate.FAILED_BEFORE_HEAD) && !notConnected.contains(o)).toList()) {
      assertThat(inFlight.status()).as("sent before the kill: %s; the kill signalled at %+.1f "
          + "ms and done at %+.1f ms from its start", inFlight,
          (signalled - inFlight.startNanos()) / 1e6, (kill - inFlight.startNanos()) / 1e6)
          .isEqualTo(502);
      assertThat(Duration.ofNanos(inFlight.endNanos() - kill)).as("ends promptly: " + inFlight)
          .isLessThan(Duration.ofSeconds(5));
    }
    List<Outcome> broken = load.outcomes().stream().filter(o -> o.fate() == Fate.BROKEN)
        .toList();
    long inFlightFailed = load.outcomes().stream().filter(o -> (o.fate() == Fate.REFUSED
        || o.fate() == Fate.FAILED_BEFORE_HEAD) && !notConnected.contains(o)).count();
    FIGURES.add(String.format("| replica node `kill -9` | %d | %d (sent to it before the kill) "
            + "| %d | 0 (dead replicas rerouted until unreachable at +%.1f s; replacement "
            + "running at +%.1f s) | - |", load.startedAfter(kill, o -> true).size(),
        inFlightFailed, broken.size(), unreachableAfter / 1e9, replacedAfterNanos / 1e9));
    assertThat(broken).as("streams running on the killed node").isNotEmpty();
    for (Outcome stream : broken) {
      assertThat(Duration.ofNanos(stream.endNanos() - kill))
          .as("a broken stream ends promptly: " + stream).isLessThan(Duration.ofSeconds(5));
    }
  }

  /** The client's TCP connect failed: the request never left it. */
  private static boolean notConnected(Outcome outcome) {
    return outcome.fate() == Fate.FAILED_BEFORE_HEAD
        && outcome.detail().startsWith("java.net.ConnectException");
  }

  @Test
  @Order(2)
  void theSingletonNodeLeavingGracefullyHandsOverWithoutRestartingAReplica() throws Exception {
    assertThat(TestNodes.api(API[0], "PATCH", "/api/applications/llm/deployments/sim",
        "{\"num_replicas\": 3}", "application/json").statusCode()).isEqualTo(200);
    JsonNode before = NodeProcesses.await("3 replicas running", Duration.ofSeconds(30),
        () -> NodeProcesses.deployment(API[0]).filter(d -> running(d) == 3
            && d.path("replicas").size() == 3), all());
    String host = singletonsOn(API[0]);
    assertThat(host).endsWith(":" + REMOTING[0]);

    FaultLoad load = new FaultLoad(INGRESS[1], STREAMS, TOKENS);
    long leave;
    try {
      awaitCompleted(load, 32, 0);
      // A long stream through the leaving node's own ingress: the node drains it before leaving.
      CompletableFuture<Boolean> head = new CompletableFuture<>();
      CompletableFuture<HttpResponse<String>> drained = longStream(INGRESS[0], head);
      head.get(10, TimeUnit.SECONDS);
      leave = System.nanoTime();
      control[0].process.destroy();  // SIGTERM
      assertThat(drained.get(30, TimeUnit.SECONDS).body())
          .as("the stream through the leaving node's ingress").endsWith("data: [DONE]\n\n");
      assertThat(control[0].process.waitFor(60, TimeUnit.SECONDS)).isTrue();
      awaitServingAgain(load, leave, API[1], host);
    } finally {
      load.close();
    }
    Duration gap = unroutedAfter(load, leave);
    assertThat(gap).as("graceful hand-over: no request routed for").isLessThan(
        Duration.ofSeconds(10));
    assertUnchanged(before, API[1]);
    figure("singletons' node leaves (SIGTERM)", load, leave, gap);
  }

  @Test
  @Order(3)
  void theSingletonNodeKilledFailsRequestsFastAndAdoptsEveryReplica() throws Exception {
    // The singletons run on whichever of the two remaining control nodes is older.
    int host = singletonsOn(API[1]).endsWith(":" + REMOTING[1]) ? 1 : 2;
    int survivor = 3 - host;
    JsonNode before = NodeProcesses.deployment(API[host]).orElseThrow();
    FaultLoad load = new FaultLoad(INGRESS[survivor], STREAMS, TOKENS);
    long kill;
    Duration routeTook;
    String routeAnswer;
    try {
      awaitCompleted(load, 32, 0);
      String old = singletonsOn(API[survivor]);
      kill = System.nanoTime();
      control[host].process.destroyForcibly();  // SIGKILL
      // Once the gap is known, the router endpoint an external data plane asks fails fast too.
      NodeProcesses.await("the gap known to the surviving ingress", Duration.ofSeconds(30),
          () -> load.startedAfter(kill, o -> o.fate() == Fate.REFUSED).isEmpty()
              ? Optional.empty() : Optional.of(true), all());
      long asked = System.nanoTime();
      HttpResponse<String> route = TestNodes.post(ROUTER[survivor], "/internal/route", "{}");
      routeTook = Duration.ofNanos(System.nanoTime() - asked);
      routeAnswer = route.statusCode() + " " + route.body();
      awaitServingAgain(load, kill, API[survivor], old);
    } finally {
      load.close();
    }
    assertThat(routeAnswer).startsWith("503").contains("router unreachable");
    // Fast, not after the endpoint's ask timeout (one request: a stall of the machine is not it).
    assertThat(routeTook).as("/internal/route during the gap").isLessThan(ROUTER_ASK_TIMEOUT);
    List<Outcome> refused = load.startedAfter(kill, o -> o.fate() == Fate.REFUSED);
    assertThat(refused).as("new requests during the gap").isNotEmpty();
    long known = refused.stream().mapToLong(Outcome::endNanos).min().orElseThrow();
    // While no router is reachable the ingress answers at once (membership tells it): under
    // 100 ms, measured at the client. On a 2-core machine shared by four JVMs and 32 clients a
    // single answer can still wait for a core (CI once saw one take 2.0 s among thousands under
    // 50 ms), so: 95 % under 100 ms, and none waits for the router's ask timeout (5 s), which is
    // what each would take without the watch. (Once the new router runs, it holds requests
    // briefly for its first replica sets: not counted.)
    List<Outcome> fast = load.startedAfter(known, o -> o.fate() == Fate.REFUSED
        && !o.detail().startsWith("the router started"));
    assertThat(fast).isNotEmpty();
    long under100 = fast.stream().filter(o -> o.took().toMillis() < 100).count();
    assertThat(under100).as("503s under 100 ms once the gap is known, of " + fast.size())
        .isGreaterThanOrEqualTo((long) Math.ceil(fast.size() * 0.95));
    List<Outcome> late = fast.stream().filter(o -> o.took().toMillis() >= 100).toList();
    assertThat(late).as("503s once the gap is known that waited for the route timeout:"
        + FaultLoad.timeline(late, known)).allSatisfy(o -> assertThat(o.took())
        .isLessThan(ROUTE_TIMEOUT));
    Duration gap = unroutedAfter(load, kill);
    assertThat(gap).as("kill -9 of the singletons' node: no request routed for")
        .isLessThan(Duration.ofSeconds(25));
    assertUnchanged(before, API[survivor]);
    figure("singletons' node `kill -9` (3 control nodes)", load, kill, gap);
  }

  /**
   * Streams flowing through a surviving ingress all completed; every request refused meanwhile
   * got 503 router_unreachable; and traffic is routed again.
   */
  private static void awaitServingAgain(FaultLoad load, long fault, int api, String gone)
      throws Exception {
    NodeProcesses.await("the singletons on the next control node", Duration.ofSeconds(40),
        () -> Optional.of(singletonsOn(api)).filter(s -> !s.isEmpty() && !s.equals(gone)),
        all());
    awaitCompleted(load, 32, System.nanoTime());
    List<Outcome> afterFault = load.startedAfter(fault, o -> true);
    assertThat(load.outcomes().stream().filter(o -> o.fate() == Fate.BROKEN
        || o.fate() == Fate.FAILED_BEFORE_HEAD).toList())
        .as("streams through a surviving ingress are never touched").isEmpty();
    assertThat(afterFault.stream().filter(o -> o.fate() == Fate.REFUSED)
        .filter(o -> o.status() != 503 || !o.reason().equals("router_unreachable")).toList())
        .as("refusals during the gap: 503 router_unreachable").isEmpty();
  }

  /** Same replica ids, none started, none left running unmanaged, desired state intact. */
  private static void assertUnchanged(JsonNode before, int api) throws Exception {
    JsonNode after = NodeProcesses.await("every replica adopted", Duration.ofSeconds(20),
        () -> NodeProcesses.deployment(api).filter(d -> running(d) == 3), all());
    assertThat(NodeProcesses.replicaIds(after)).isEqualTo(NodeProcesses.replicaIds(before));
    assertThat(after.path("replicas").size()).as("replica records").isEqualTo(3);
    assertThat(after.path("target_replicas").asInt()).isEqualTo(3);
    assertThat(NodeProcesses.listening(R1_FIRST, R1_LAST)).as("replica endpoints listening")
        .isEqualTo(3);
  }

  private static void figure(String fault, FaultLoad load, long at, Duration gap) {
    List<Outcome> after = load.startedAfter(at, o -> true);
    long refused = after.stream().filter(o -> o.fate() == Fate.REFUSED).count();
    double slowest = after.stream().filter(o -> o.fate() == Fate.COMPLETED)
        .mapToLong(o -> o.took().toMillis()).max().orElse(0) / 1e3;
    FIGURES.add(String.format("| %s | %d | %d (503 router_unreachable) | %d | %.1f s (slowest "
            + "completed request: %.1f s, normally 0.5 s) | 0 |", fault, after.size(), refused,
        load.outcomes().stream().filter(o -> o.fate() == Fate.BROKEN).count(),
        gap.toMillis() / 1e3, slowest));
  }

  /** From the fault until the first request routed after the last refusal (zero if none). */
  private static Duration unroutedAfter(FaultLoad load, long fault) {
    long lastRefusal = load.startedAfter(fault, o -> o.fate() == Fate.REFUSED).stream()
        .mapToLong(Outcome::startNanos).max().orElse(fault);
    long firstRouted = load.startedAfter(lastRefusal, o -> o.fate() == Fate.COMPLETED).stream()
        .min(Comparator.comparingLong(Outcome::startNanos)).orElseThrow().startNanos();
    return lastRefusal == fault ? Duration.ZERO : Duration.ofNanos(firstRouted - fault);
  }

  private static void awaitCompleted(FaultLoad load, int count, long startedAfter)
      throws Exception {
    try {
      NodeProcesses.await(count + " streams completed", Duration.ofSeconds(60), () ->
          load.startedAfter(startedAfter, o -> o.fate() == Fate.COMPLETED).size() >= count
              ? Optional.of(true) : Optional.empty(), all());
    } catch (AssertionError e) {
      throw new AssertionError("requests so far: " + load.summary(startedAfter) + "\n"
          + e.getMessage(), e);
    }
  }

  private static CompletableFuture<HttpResponse<String>> longStream(int ingress,
      CompletableFuture<Boolean> head) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ingress
            + "/v1/chat/completions"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"messages\":[{\"role\":\"user\","
            + "\"content\":\"drain me\"}],\"max_tokens\":100,\"stream\":true}"))
        .header("content-type", "application/json").build();
    return TestNodes.HTTP.sendAsync(request, info -> {
      head.complete(info.statusCode() == 200);
      return HttpResponse.BodySubscribers.ofString(java.nio.charset.StandardCharsets.UTF_8);
    });
  }

  private static String singletonsOn(int api) {
    return NodeProcesses.get(api, "/api/cluster")
        .map(cluster -> cluster.path("singletons").path("controller").asText()).orElse("");
  }

  private static long running(JsonNode deployment) {
    return deployment.path("current_replicas").asLong();
  }

  private static TreeSet<String> onNode(JsonNode deployment, int remoting) {
    TreeSet<String> ids = new TreeSet<>();
    deployment.path("replicas").forEach(row -> {
      if (row.path("node").asText().endsWith(":" + remoting)) {
        ids.add(row.path("replica_id").asText());
      }
    });
    return ids;
  }

  private static NodeProcess[] all() {
    return new NodeProcess[] {control[0], control[1], control[2], replicas1, replicas2};
  }
}
