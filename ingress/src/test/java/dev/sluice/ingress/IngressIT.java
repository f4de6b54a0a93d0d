package dev.sluice.ingress;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.capacity.CapacityQueue;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.http.ServeReason;
import dev.sluice.router.LLMRouter;
import dev.sluice.router.RouteRequest;
import dev.sluice.router.RouteResult;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The ingress against a scripted router: every fail-closed reason, and what the router is told. */
class IngressIT {

  private static final ActorTestKit testKit = ActorTestKit.create(
      ConfigFactory.parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
  private static final HttpClient client = HttpClient.newHttpClient();
  private static final AtomicReference<Function<RouteRequest, RouteResult>> script =
      new AtomicReference<>();
  private static final LinkedBlockingQueue<RouteRequest> seen = new LinkedBlockingQueue<>();
  private static final ReplicaSetView view = new ReplicaSetView();
  private static final TestProbe<CapacityQueue.Command> leases = testKit.createTestProbe();
  private static IngressBinding binding;
  private static IngressBinding forwarding;
  private static ServerBinding echo;
  private static ReplicaInfo closedPortReplica;
  private static ReplicaInfo echoReplica;
  /** A replica the view had in its first set and not in its second. */
  private static ReplicaInfo retiredReplica;

  @BeforeAll
  static void start() throws Exception {
    var router = testKit.spawn(Behaviors.<LLMRouter.Command>receiveMessage(command -> {
      if (command instanceof LLMRouter.Route route) {
        seen.add(route.request());
        RouteResult result = script.get().apply(route.request());
        if (result != null) {
          route.replyTo().tell(result);
        }
      }
      return Behaviors.same();
    }));
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    closedPortReplica = new ReplicaInfo(ReplicaId.parse("llm#sim#closed00"), "node", "127.0.0.1",
        closedPort, 4, ReplicaState.RUNNING, List.of("sim"));
    // A stand-in replica that answers with the number of body bytes it received.
    echo = org.apache.pekko.http.javadsl.Http.get(testKit.system()).newServerAt("127.0.0.1", 0)
        .bind((org.apache.pekko.japi.function.Function<org.apache.pekko.http.javadsl.model
            .HttpRequest, java.util.concurrent.CompletionStage<org.apache.pekko.http.javadsl.model
            .HttpResponse>>) request -> request.entity().toStrict(5_000, testKit.system())
            .thenApplyAsync(strict -> strict.getData().utf8String().contains("\"full\"")
                ? org.apache.pekko.http.javadsl.model.HttpResponse.create().withStatus(503)
                    .addHeader(org.apache.pekko.http.javadsl.model.headers.RawHeader.create(
                        "x-serve-reason", "replica_at_capacity"))
                : org.apache.pekko.http.javadsl.model.HttpResponse.create()
                    .withEntity("{\"received\":" + strict.getData().size() + "}"),
                testKit.system().executionContext()))
        .toCompletableFuture().get();
    echoReplica = new ReplicaInfo(ReplicaId.parse("llm#sim#echo0000"), "node", "127.0.0.1",
        echo.localAddress().getPort(), 4, ReplicaState.RUNNING, List.of("sim"));
    retiredReplica = new ReplicaInfo(ReplicaId.parse("llm#sim#dropped0"), "node", "127.0.0.1",
        echo.localAddress().getPort(), 4, ReplicaState.RUNNING, List.of("sim"));
    view.apply(new ReplicaSet(new DeploymentId("llm", "sim"), 1, "/", List.of("sim"),
        "round-robin", Map.of(), List.of(closedPortReplica, echoReplica, retiredReplica)));
    view.apply(new ReplicaSet(new DeploymentId("llm", "sim"), 2, "/", List.of("sim"),
        "round-robin", Map.of(), List.of(closedPortReplica, echoReplica)));
    binding = IngressServer.start(testKit.system(), router, settings(false), view,
        Optional.empty(), fatal -> { }).toCompletableFuture().get();
    forwarding = IngressServer.start(testKit.system(), router, settings(true), view,
        Optional.of(leases.ref()), fatal -> { }).toCompletableFuture().get();
  }

  /** A splice ingress with a short route timeout, forwarding the body or not. */
  static IngressSettings settings(boolean forwardBody) {
    return IngressSettings.fromConfig(ConfigFactory.parseString("""
        sluice.ingress {
          port = 0
          route-timeout = 300ms
          forward-body = %s
          forward-body-limit = 1024
          max-request-bytes = 1 MiB
          splice.threads = 1
        }
        """.formatted(forwardBody ? "on" : "off")).withFallback(ConfigFactory.load()).resolve());
  }

  @AfterAll
  static void stop() {
    binding.unbind();
    forwarding.unbind();
    echo.unbind();
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void clear() {
    seen.clear();
  }

  private static HttpResponse<String> chat(String... headers) throws Exception {
    return send(binding, "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", headers);
  }

  private static HttpResponse<String> send(IngressBinding server, String body, String... headers)
      throws Exception {
    var request = HttpRequest.newBuilder(URI.create(
            "http://127.0.0.1:" + server.localAddress().getPort() + "/v1/chat/completions"))
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void assertFailClosed(HttpResponse<String> response, ServeReason reason) {
    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.headers().firstValue("x-serve-reason")).hasValue(reason.value());
    assertThat(response.headers().firstValue("content-type")).hasValue("text/plain; charset=UTF-8");
    assertThat(response.body()).isEqualTo("Ingress request router failed: " + reason.value());
    assertThat(response.headers().firstValue("x-request-id")).isPresent();
  }

  @Test
  void routerSilenceFailsClosedAsUnreachable() throws Exception {
    script.set(request -> null);

    assertFailClosed(chat(), ServeReason.ROUTER_UNREACHABLE);
  }

  @Test
  void routerRefusalPassesItsReason() throws Exception {
    script.set(request -> new RouteResult.NotRouted(ServeReason.NO_REPLICAS, "none"));

    assertFailClosed(chat(), ServeReason.NO_REPLICAS);
  }

  @Test
  void aPickThisIngressHasNotHeardOfYetIsTakenAsTheRouterSentIt() throws Exception {
    // The router learns of a new replica first (it sits beside the controller): its pick carries
    // the endpoint, so the request goes there rather than failing.
    script.set(request -> new RouteResult.Routed(new ReplicaInfo(
        ReplicaId.parse("llm#sim#newer000"), "node", "127.0.0.1", echoReplica.port(), 4,
        ReplicaState.RUNNING, List.of("sim"))));

    HttpResponse<String> response = chat();
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(seen.poll().excluded()).isEmpty();
    assertThat(seen).as("asked once").isEmpty();
  }

  @Test
  void aPickThisIngressSawDroppedFailsClosedWhenTheRouterHasNoOther() throws Exception {
    script.set(request -> new RouteResult.Routed(retiredReplica));

    assertFailClosed(chat(), ServeReason.UNKNOWN_REPLICA_ID);
    assertThat(seen.poll().excluded()).isEmpty();
    assertThat(seen.poll().excluded()).containsExactly(retiredReplica.id().toString());
  }

  @Test
  void aPickThisIngressAlreadyDroppedIsRoutedAgainWithoutIt() throws Exception {
    script.set(request -> request.excluded().isEmpty()
        ? new RouteResult.Routed(retiredReplica)
        : new RouteResult.Routed(echoReplica));

    HttpResponse<String> response = chat();
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(seen.poll().excluded()).isEmpty();
    assertThat(seen.poll().excluded()).containsExactly(retiredReplica.id().toString());
  }

  @Test
  void refusedConnectionFailsClosedAsReplicaUnreachable() throws Exception {
    script.set(request -> new RouteResult.Routed(closedPortReplica));

    HttpResponse<String> response = chat();

    assertFailClosed(response, ServeReason.REPLICA_UNREACHABLE);
    // The replica and the cause, not where the replica listens: that is for the node's log.
    assertThat(response.headers().firstValue("x-sluice-detail")).hasValueSatisfying(detail ->
        assertThat(detail).startsWith("replica llm#sim#closed00: ").containsIgnoringCase("refused")
            .doesNotContain("127.0.0.1").doesNotContain(":" + closedPortReplica.port()));
  }

  @Test
  void passesSessionHeaderAndRequestIdToTheRouter() throws Exception {
    script.set(request -> new RouteResult.NotRouted(ServeReason.NO_REPLICAS, "none"));

    HttpResponse<String> response = chat("X_Session_ID", "user-42", "x-request-id", "rid-7");

    RouteRequest routed = seen.poll(5, TimeUnit.SECONDS);
    assertThat(routed).isNotNull();
    assertThat(routed.sessionId()).hasValue("user-42");
    assertThat(routed.requestId()).isEqualTo("rid-7");
    assertThat(routed.body()).isEmpty();
    assertThat(response.headers().firstValue("x-request-id")).hasValue("rid-7");
  }

  @Test
  void forwardsASmallBodyWholeToTheRouter() throws Exception {
    script.set(request -> new RouteResult.Routed(echoReplica));
    String body = "{\"model\":\"sim\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    HttpResponse<String> response = send(forwarding, body);

    RouteRequest routed = seen.poll(5, TimeUnit.SECONDS);
    assertThat(routed.body()).hasValueSatisfying(forwarded -> {
      assertThat(forwarded.truncated()).isFalse();
      assertThat(new String(forwarded.bytes(), java.nio.charset.StandardCharsets.UTF_8))
          .isEqualTo(body);
      assertThat(forwarded.routingKeys().model()).hasValue("sim");
      assertThat(forwarded.routingKeys().prompt()).hasValue("hi");
    });
    assertThat(response.body()).isEqualTo("{\"received\":" + body.length() + "}");
  }

  @Test
  void cutsALargeBodyForTheRouterButSendsItWholeToTheReplica() throws Exception {
    script.set(request -> new RouteResult.Routed(echoReplica));
    String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(5000)
        + "\"}]}";

    HttpResponse<String> response = send(forwarding, body);

    RouteRequest routed = seen.poll(5, TimeUnit.SECONDS);
    assertThat(routed.body()).hasValueSatisfying(forwarded -> {
      assertThat(forwarded.truncated()).isTrue();
      assertThat(forwarded.truncationHeader()).isEqualTo("1024/" + body.length());
      assertThat(forwarded.routingKeys().prompt()).isEmpty();
    });
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("{\"received\":" + body.length() + "}");
    assertThat(response.headers().firstValue("x-sluice-replica")).hasValue("llm#sim#echo0000");
  }

  @Test
  void aLeaseIsReleasedOnceWhenTheAnswerEndsButKeptWhenTheReplicaRejects() throws Exception {
    script.set(request -> new RouteResult.Routed(echoReplica, Optional.of("lease-ok")));
    assertThat(send(forwarding, "{\"prompt\":\"fine\"}").statusCode()).isEqualTo(200);
    assertThat(leases.receiveMessage(Duration.ofSeconds(2)))
        .isEqualTo(new CapacityQueue.Release("lease-ok"));

    script.set(request -> new RouteResult.Routed(echoReplica, Optional.of("lease-rejected")));
    HttpResponse<String> rejected = send(forwarding, "{\"prompt\":\"full\"}");

    assertThat(rejected.statusCode()).isEqualTo(503);
    assertThat(rejected.headers().firstValue("x-serve-reason")).hasValue("replica_at_capacity");
    leases.expectNoMessage(Duration.ofMillis(500));
  }

  @Test
  void wrongMethodAndUnknownPathGetOpenAiErrors() throws Exception {
    var get = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + binding.localAddress().getPort() + "/v1/chat/completions")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(405);
    assertThat(get.body()).contains("\"code\":\"method_not_allowed\"");
    var missing = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + binding.localAddress().getPort() + "/v2/x")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.body()).contains("\"type\":\"invalid_request_error\"");
    assertThat(seen).isEmpty();
  }
}
