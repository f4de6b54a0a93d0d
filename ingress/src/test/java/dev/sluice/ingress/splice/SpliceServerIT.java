package dev.sluice.ingress.splice;

import static dev.sluice.ingress.splice.ScriptedUpstream.ascii;
import static dev.sluice.ingress.splice.ScriptedUpstream.chunk;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.Await;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.HeaderField;
import dev.sluice.ingress.edge.UpstreamFailure;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The splice server against a scripted replica endpoint and raw client sockets on loopback:
 * framing, connection reuse, pipelining, bad input, faults, and that every lease is released
 * exactly once however the answer ends.
 */
class SpliceServerIT {

  private static final SpliceSettings SETTINGS =
      SpliceSettings.forTests(4096, 64 * 1024, Duration.ofSeconds(1));

  /** Counts what happens to one request's lease. */
  static final class RecordingLease implements Decision.Lease {
    final AtomicInteger releases = new AtomicInteger();
    final AtomicInteger keeps = new AtomicInteger();
    final CountDownLatch ended = new CountDownLatch(1);

    @Override
    public void release() {
      releases.incrementAndGet();
      ended.countDown();
    }

    @Override
    public void keepUntilTtl() {
      keeps.incrementAndGet();
      ended.countDown();
    }

    void awaitEnd() throws InterruptedException {
      assertThat(ended.await(10, TimeUnit.SECONDS)).as("lease ended").isTrue();
    }
  }

  private final List<RecordingLease> leases = new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile int upstreamPort;
  /**
   * Where a retried request goes: after one refusal to replica-2 at {@code retryPort}, after two
   * to replica-3 at {@code secondRetryPort} (the same port unless a test sets it).
   */
  private volatile int retryPort;
  private volatile int secondRetryPort = -1;
  /** The replicas the splice asked the dispatcher to exclude, one list per retry. */
  private final List<List<String>> excluded =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final CompletableFuture<Integer> slowDecision = new CompletableFuture<>();
  private ScriptedUpstream upstream;
  private SpliceServer server;

  /** Requests the dispatcher decided, in order (what reached the control side). */
  private final List<SpliceRequest> decided = new java.util.concurrent.CopyOnWriteArrayList<>();

  private final SpliceDispatcher dispatcher = new SpliceDispatcher() {
    @Override
    public Optional<Answer> screen(SpliceRequest head) {
      return head.header("x-deny") == null ? Optional.empty()
          : Optional.of(Answer.text(401, "denied"));
    }

    @Override
    public CompletionStage<Decision> decide(SpliceRequest request) {
      decided.add(request);
      if (request.path().equals("/local")) {
        return CompletableFuture.completedFuture(
            new Decision.Respond(Answer.text(200, "local answer")));
      }
      RecordingLease lease = new RecordingLease();
      leases.add(lease);
      if (request.path().equals("/slow")) {
        return slowDecision.thenApply(port -> new Decision.Forward("127.0.0.1", port,
            "replica-1", List.of(), lease));
      }
      return CompletableFuture.supplyAsync(() -> new Decision.Forward("127.0.0.1", upstreamPort,
          "replica-1", List.of(new HeaderField("x-extra", "yes")), lease));
    }

    @Override
    public CompletionStage<Decision> retry(SpliceRequest request, List<String> refused) {
      excluded.add(refused);
      RecordingLease lease = new RecordingLease();
      leases.add(lease);
      boolean second = refused.size() > 1 && secondRetryPort > 0;
      return CompletableFuture.completedFuture(new Decision.Forward("127.0.0.1",
          second ? secondRetryPort : retryPort, "replica-" + (refused.size() + 1), List.of(),
          lease));
    }

    @Override
    public Answer upstreamFailed(Decision.Forward target, SpliceRequest request,
        UpstreamFailure failure, String detail) {
      return Answer.text(failure == UpstreamFailure.TIMED_OUT ? 504 : 502, failure.name());
    }
  };

  @BeforeEach
  void start() throws IOException {
    upstream = new ScriptedUpstream();
    upstreamPort = upstream.port();
    server = SpliceServer.bind("127.0.0.1", 0, SETTINGS, dispatcher, fatal -> { });
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
    upstream.close();
  }

  private Socket client() throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.localAddress().getPort());
    socket.setSoTimeout(10_000);
    return socket;
  }

  private static String post(String path, String body, String... headers) {
    StringBuilder request = new StringBuilder("POST " + path + " HTTP/1.1\r\nhost: x\r\n");
    for (int i = 0; i < headers.length; i += 2) {
      request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
    }
    return request.append("content-length: ").append(body.length()).append("\r\n\r\n")
        .append(body).toString();
  }

  @Test
  void splicesTheAnswerAndReusesTheUpstreamConnection() throws Exception {
    try (Socket socket = client()) {
      InputStream in = new BufferedInputStream(socket.getInputStream());
      for (int i = 0; i < 3; i++) {
        socket.getOutputStream().write(ascii(post("/v1/chat/completions", "{\"n\":" + i + "}",
            "x-request-id", "req-" + i, "connection", "keep-alive, x-drop", "x-drop", "1")));
        RawHttp.Response response = RawHttp.response(in);

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.header("content-type")).isEqualTo("text/event-stream");
        assertThat(response.header("x-sluice-replica")).isEqualTo("replica-1");
        assertThat(response.header("x-request-id")).isEqualTo("req-" + i);
        assertThat(response.body()).isEqualTo(
            "data: token-0\n\ndata: token-1\n\ndata: token-2\n\ndata: [DONE]\n\n");
        String seen = upstream.requests.poll(5, TimeUnit.SECONDS);
        assertThat(seen).startsWith("POST /v1/chat/completions HTTP/1.1")
            .contains("x-request-id=req-" + i).contains("x-extra=yes")
            .doesNotContain("x-drop").endsWith("{\"n\":" + i + "}");
      }
    }
    assertThat(upstream.connections).hasValue(1);
    for (RecordingLease lease : leases) {
      lease.awaitEnd();
      assertThat(lease.releases).hasValue(1);
    }
  }

  @Test
  void answersPipelinedRequestsInOrder() throws Exception {
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("/v1/completions", "{}", "x-request-id", "a")
          + "GET /local HTTP/1.1\r\nhost: x\r\n\r\n"
          + post("/v1/completions", "{}", "x-request-id", "b")));
      InputStream in = new BufferedInputStream(socket.getInputStream());

      assertThat(RawHttp.response(in).header("x-request-id")).isEqualTo("a");
      assertThat(RawHttp.response(in).body()).isEqualTo("local answer");
      assertThat(RawHttp.response(in).header("x-request-id")).isEqualTo("b");
    }
  }

  @Test
  void aChunkedRequestBodyReachesTheReplicaWhole() throws Exception {
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii("POST /v1/completions HTTP/1.1\r\nhost: x\r\n"
          + "transfer-encoding: chunked\r\n\r\n6\r\n{\"a\":1\r\n"));
      socket.getOutputStream().flush();
      socket.getOutputStream().write(ascii("1;ext=1\r\n}\r\n0\r\nx-trailer: t\r\n\r\n"
          + "GET /local HTTP/1.1\r\nhost: x\r\n\r\n"));
      InputStream in = new BufferedInputStream(socket.getInputStream());

      assertThat(RawHttp.response(in).status()).isEqualTo(200);
      assertThat(RawHttp.response(in).body()).isEqualTo("local answer");
    }
    String seen = upstream.requests.poll(5, TimeUnit.SECONDS);
    assertThat(seen).contains("content-length=7").doesNotContain("transfer-encoding")
        .endsWith("{\"a\":1}");
  }

  @Test
  void http10HealthChecksAreAnsweredAndCompletionsNeedHttp11() throws Exception {
    RawHttp.Response health = rejected("GET /local HTTP/1.0\r\n\r\n");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.body()).isEqualTo("local answer");

    RawHttp.Response completion = rejected("POST /v1/completions HTTP/1.0\r\n"
        + "content-length: 2\r\n\r\n{}");
    assertThat(completion.status()).isEqualTo(505);
    assertThat(completion.body()).contains("HTTP/1.1");
    leases.get(0).awaitEnd();
    assertThat(leases.get(0).releases).hasValue(1);
    assertThat(upstream.connections).hasValue(0);
  }

  @Test
  void expectContinueGetsAContinueBeforeTheBodyIsSent() throws Exception {
    try (Socket socket = client()) {
      String body = "{\"x\":1}";
      socket.getOutputStream().write(ascii("POST /v1/completions HTTP/1.1\r\nhost: x\r\n"
          + "expect: 100-continue\r\ncontent-length: " + body.length() + "\r\n\r\n"));
      InputStream in = new BufferedInputStream(socket.getInputStream());
      assertThat(RawHttp.response(in).status()).isEqualTo(100);

      socket.getOutputStream().write(ascii(body));
      assertThat(RawHttp.response(in).status()).isEqualTo(200);
      assertThat(upstream.requests.poll(5, TimeUnit.SECONDS)).doesNotContain("expect");
    }
  }

  private RawHttp.Response rejected(String request) throws IOException {
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(request));
      InputStream in = new BufferedInputStream(socket.getInputStream());
      RawHttp.Response response = RawHttp.response(in);
      assertThat(response.header("connection")).isEqualTo("close");
      assertThat(in.read()).as("connection closed after the error").isEqualTo(-1);
      return response;
    }
  }

  @Test
  void badInputGetsAnOpenAiErrorAndTheConnectionClosed() throws Exception {
    RawHttp.Response tooBig = rejected("POST /v1/completions HTTP/1.1\r\nhost: x\r\n"
        + "content-length: " + (1 << 20) + "\r\n\r\n");
    assertThat(tooBig.status()).isEqualTo(413);
    assertThat(tooBig.body()).contains("\"type\":\"invalid_request_error\"")
        .contains("\"code\":\"payload_too_large\"");

    assertThat(rejected("GET /" + "a".repeat(5000) + " HTTP/1.1\r\n\r\n").status())
        .isEqualTo(431);
    assertThat(rejected("POST /v1/completions HTTP/1.1\r\ntransfer-encoding: gzip\r\n\r\n")
        .body()).contains("Transfer-Encoding gzip");
    assertThat(rejected("POST /v1/completions HTTP/1.1\r\ntransfer-encoding: chunked\r\n"
        + "content-length: 3\r\n\r\n").status()).isEqualTo(400);
    assertThat(rejected("POST /v1/completions HTTP/1.1\r\nhost: x\r\n"
        + "transfer-encoding: chunked\r\n\r\nzz\r\n").status()).isEqualTo(400);
    String overLimit = Integer.toHexString(64 * 1024) + "\r\n" + "x".repeat(64 * 1024) + "\r\n"
        + "1\r\nx\r\n";
    assertThat(rejected("POST /v1/completions HTTP/1.1\r\nhost: x\r\n"
        + "transfer-encoding: chunked\r\n\r\n" + overLimit).status()).isEqualTo(413);
    assertThat(rejected("GET / HTTP/2.0\r\n\r\n").status()).isEqualTo(505);
    RawHttp.Response smuggled = rejected("POST /v1/completions HTTP/1.1\r\ncontent-length: 1\r\n"
        + "content-length: 2\r\n\r\nab");
    assertThat(smuggled.status()).isEqualTo(400);
    assertThat(smuggled.body()).contains("Content-Length");
    assertThat(leases).as("nothing was routed").isEmpty();
    assertThat(upstream.connections).hasValue(0);
  }

  @Test
  void clientLeavingMidStreamClosesTheUpstreamAndReleasesOnce() throws Exception {
    CountDownLatch streaming = new CountDownLatch(1);
    upstream.script = (request, headers, out, socket) -> {
      out.write(ascii("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"));
      out.write(chunk("data: first\n\n"));
      out.flush();
      streaming.countDown();
      while (true) {  // until the ingress closes this connection
        out.write(chunk("data: more\n\n"));
        out.flush();
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return false;
        }
      }
    };
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("/v1/chat/completions", "{}")));
      InputStream in = new BufferedInputStream(socket.getInputStream());
      assertThat(RawHttp.line(in)).isEqualTo("HTTP/1.1 200 OK");
      assertThat(streaming.await(5, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(upstream.events.poll(10, TimeUnit.SECONDS)).startsWith("closed");
    leases.get(0).awaitEnd();
    assertThat(leases.get(0).releases).hasValue(1);
  }

  @Test
  void upstreamDyingMidStreamBreaksTheClientConnectionAndReleasesOnce() throws Exception {
    upstream.script = (request, headers, out, socket) -> {
      out.write(ascii("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"));
      out.write(chunk("data: first\n\n"));
      out.flush();
      return false;  // closes the connection inside the chunked body
    };
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("/v1/chat/completions", "{}")));
      InputStream in = new BufferedInputStream(socket.getInputStream());
      assertThat(RawHttp.line(in)).isEqualTo("HTTP/1.1 200 OK");
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> {
        RawHttp.fields(in);
        RawHttp.body(in, java.util.Map.of("transfer-encoding", "chunked"));
      }).isInstanceOf(IOException.class);
    }
    leases.get(0).awaitEnd();
    assertThat(leases.get(0).releases).hasValue(1);
  }

  @Test
  void aClientHalfClosingAfterItsRequestStillGetsTheAnswer() throws Exception {
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("/slow", "{}", "x-request-id", "half")));
      socket.shutdownOutput();  // an HTTP half-close is not an abort (RFC 9112 §9.6)
      Await.until(Duration.ofSeconds(5), "the request reached the router",
          () -> !leases.isEmpty());
      slowDecision.complete(upstreamPort);
      InputStream in = new BufferedInputStream(socket.getInputStream());
      RawHttp.Response response = RawHttp.response(in);

      assertThat(response.status()).isEqualTo(200);
      assertThat(response.header("x-request-id")).isEqualTo("half");
      assertThat(response.header("connection")).isEqualTo("close");
      assertThat(in.read()).as("closed after the answer").isEqualTo(-1);
    }
    leases.get(0).awaitEnd();
    assertThat(leases.get(0).releases).hasValue(1);
  }

  @Test
  void aClientLeavingWhileTheRouterChoosesReleasesTheLeaseOnce() throws Exception {
    upstream.script = (request, headers, out, socket) -> {
      out.write(ascii("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"));
      while (true) {  // until the ingress, finding its client gone, closes this connection
        out.write(chunk("data: more\n\n"));
        out.flush();
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return false;
        }
      }
    };
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("/slow", "{}")));
      Await.until(Duration.ofSeconds(5), "the request reached the router",
          () -> !leases.isEmpty());
    }
    slowDecision.complete(upstreamPort);

    leases.get(0).awaitEnd();
    assertThat(leases.get(0).releases).hasValue(1);
    assertThat(server.openConnections()).isZero();
    assertThat(upstream.events.poll(10, TimeUnit.SECONDS)).startsWith("closed");
  }

  @Test
  void refusedConnectionIsRoutedOnceMoreWithoutThatReplica() throws Exception {
    try (ServerSocket closed = new ServerSocket(0)) {
      upstreamPort = closed.getLocalPort();
    }
    retryPort = upstream.port();
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("/v1/chat/completions", "{\"n\":1}")));
      RawHttp.Response response = RawHttp.response(new BufferedInputStream(
          socket.getInputStream()));
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.header("x-sluice-replica")).isEqualTo("replica-2");
    }
    assertThat(excluded).containsExactly(List.of("replica-1"));
    assertThat(upstream.requests.poll(10, TimeUnit.SECONDS)).contains("{\"n\":1}");
    leases.get(1).awaitEnd();
    assertThat(leases).hasSize(2).allSatisfy(lease -> assertThat(lease.releases).hasValue(1));
    assertThat(server.stats().reroutes()).isEqualTo(1);
  }

  @Test
  void aReplicaAcceptingAfterTwoRefusalsServesTheRequest() throws Exception {
    try (ServerSocket closed = new ServerSocket(0)) {
      upstreamPort = closed.getLocalPort();
      retryPort = closed.getLocalPort();
    }
    secondRetryPort = upstream.port();
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("/v1/chat/completions", "{\"n\":3}")));
      RawHttp.Response response = RawHttp.response(new BufferedInputStream(
          socket.getInputStream()));
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.header("x-sluice-replica")).isEqualTo("replica-3");
    }
    assertThat(excluded).containsExactly(List.of("replica-1"), List.of("replica-1", "replica-2"));
    assertThat(upstream.requests.poll(10, TimeUnit.SECONDS)).contains("{\"n\":3}");
    leases.get(2).awaitEnd();
    assertThat(leases).hasSize(3).allSatisfy(lease -> assertThat(lease.releases).hasValue(1));
    assertThat(server.stats().reroutes()).isEqualTo(2);
  }

  @Test
  void aThirdRefusalGetsTheDispatchersAnswer() throws Exception {
    try (ServerSocket closed = new ServerSocket(0)) {
      upstreamPort = closed.getLocalPort();
      retryPort = closed.getLocalPort();
    }
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("/v1/chat/completions", "{}")));
      RawHttp.Response response = RawHttp.response(new BufferedInputStream(
          socket.getInputStream()));
      assertThat(response.status()).isEqualTo(502);
      assertThat(response.body()).isEqualTo("UNREACHABLE");
    }
    assertThat(excluded).containsExactly(List.of("replica-1"), List.of("replica-1", "replica-2"));
    assertThat(leases).hasSize(3).allSatisfy(lease -> assertThat(lease.releases).hasValue(1));
  }

  @Test
  void silentReplicaTimesOutWith504() throws Exception {
    upstream.script = (request, headers, out, socket) -> {
      try {
        Thread.sleep(10_000);
      } catch (InterruptedException ignored) {
        // the test is over
      }
      return false;
    };
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("/v1/chat/completions", "{}")));
      RawHttp.Response response = RawHttp.response(new BufferedInputStream(
          socket.getInputStream()));
      assertThat(response.status()).isEqualTo(504);
    }
    assertThat(leases.get(0).releases).hasValue(1);
  }

  @Test
  void replicaAtCapacityKeepsTheLeaseUntilItsTtl() throws Exception {
    upstream.script = (request, headers, out, socket) -> {
      out.write(ascii("HTTP/1.1 503 Service Unavailable\r\nx-serve-reason: replica_at_capacity\r\n"
          + "content-length: 4\r\n\r\nfull"));
      out.flush();
      return true;
    };
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("/v1/chat/completions", "{}")));
      RawHttp.Response response = RawHttp.response(new BufferedInputStream(
          socket.getInputStream()));
      assertThat(response.status()).isEqualTo(503);
      assertThat(response.body()).isEqualTo("full");
    }
    leases.get(0).awaitEnd();
    assertThat(leases.get(0).keeps).hasValue(1);
    assertThat(leases.get(0).releases).hasValue(0);
  }

  @Test
  void aReplicaClosingIdleConnectionsNeverFailsTheNextRequest() throws Exception {
    upstream.script = (request, headers, out, socket) -> {
      out.write(ascii("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"));
      out.flush();
      return false;  // closes the kept-alive connection right after answering
    };
    try (Socket socket = client()) {
      InputStream in = new BufferedInputStream(socket.getInputStream());
      for (int i = 0; i < 5; i++) {
        socket.getOutputStream().write(ascii(post("/v1/completions", "{}")));
        RawHttp.Response response = RawHttp.response(in);
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("ok");
      }
    }
    assertThat(upstream.connections).hasValue(5);
  }

  @Test
  void aSlowClientGetsEveryByteOfALargeAnswer() throws Exception {
    // Larger than the loopback socket buffers on both hops: the splice must hold back and
    // resume the replica's side many times.
    byte[] payload = new byte[32 << 20];
    new java.util.Random(7).nextBytes(payload);
    upstream.script = (request, headers, out, socket) -> {
      out.write(ascii("HTTP/1.1 200 OK\r\ncontent-length: " + payload.length + "\r\n\r\n"));
      out.write(payload);
      out.flush();
      return true;
    };
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("/v1/completions", "{}")));
      Thread.sleep(200);  // a client that does not read for a moment: every buffer fills up
      InputStream in = new BufferedInputStream(socket.getInputStream());
      assertThat(RawHttp.line(in)).isEqualTo("HTTP/1.1 200 OK");
      RawHttp.fields(in);
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      byte[] buffer = new byte[1024];
      int total = 0;
      while (total < payload.length) {
        int read = in.read(buffer, 0, Math.min(buffer.length, payload.length - total));
        assertThat(read).isPositive();
        digest.update(buffer, 0, read);
        total += read;
      }
      assertThat(HexFormat.of().formatHex(digest.digest())).isEqualTo(
          HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(payload)));
    }
    leases.get(0).awaitEnd();
    assertThat(leases.get(0).releases).hasValue(1);
  }

  @Test
  void shutdownLetsAnswersInFlightFinishAndRefusesNewClients() throws Exception {
    CountDownLatch streaming = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    upstream.script = (request, headers, out, socket) -> {
      out.write(ascii("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"));
      out.write(chunk("data: first\n\n"));
      out.flush();
      streaming.countDown();
      try {
        finish.await();
      } catch (InterruptedException e) {
        return false;
      }
      out.write(chunk("data: last\n\n"));
      out.write(ascii("0\r\n\r\n"));
      out.flush();
      return true;
    };
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("/v1/chat/completions", "{}")));
      InputStream in = new BufferedInputStream(socket.getInputStream());
      assertThat(RawHttp.line(in)).isEqualTo("HTTP/1.1 200 OK");
      assertThat(streaming.await(5, TimeUnit.SECONDS)).isTrue();
      Thread terminating = new Thread(() -> server.terminate(Duration.ofSeconds(20)));
      terminating.start();
      Await.until(Duration.ofSeconds(5), "the server stopped accepting", () -> {
        try (Socket late = new Socket(InetAddress.getLoopbackAddress(),
            server.localAddress().getPort())) {
          return false;
        } catch (IOException refused) {
          return true;
        }
      });

      finish.countDown();
      assertThat(RawHttp.body(in, RawHttp.fields(in)))
          .isEqualTo("data: first\n\ndata: last\n\n");
      assertThat(in.read()).as("closed once its answer was written").isEqualTo(-1);
      terminating.join(10_000);
      assertThat(terminating.isAlive()).as("shutdown ended with the last answer").isFalse();
    }
    assertThat(leases.get(0).releases).hasValue(1);
  }

  @Test
  void idleClientConnectionsAreClosed() throws Exception {
    try (Socket socket = client()) {
      socket.setSoTimeout(5_000);
      assertThat(socket.getInputStream().read()).isEqualTo(-1);
    }
    assertThat(server.openConnections()).isZero();
  }
}
