package dev.sluice.ingress.splice;

import static dev.sluice.ingress.splice.ScriptedUpstream.ascii;
import static dev.sluice.ingress.splice.ScriptedUpstream.chunk;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.Await;
import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.UpstreamFailure;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The splice's edge against hostile clients and replicas on loopback: smuggling attempts never
 * reach the replica as more requests than the client sent, an answer never reaches another
 * client, and memory and time are bounded (connections, buffered bytes, head, body and stream
 * timeouts), with every lease released once.
 */
class SpliceEdgeIT {

  private static final Duration TIMEOUTS = Duration.ofSeconds(1);

  private final List<SpliceServerIT.RecordingLease> leases =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final AtomicReference<String> upstreamHost = new AtomicReference<>("127.0.0.1");
  private final AtomicReference<Throwable> fatal = new AtomicReference<>();
  private ScriptedUpstream upstream;
  private SpliceServer server;

  private final SpliceDispatcher dispatcher = new DecidingDispatcher() {
    @Override
    public Optional<Answer> screen(SpliceRequest head) {
      return head.header("authorization") != null
          ? Optional.of(Answer.text(401, "denied")) : Optional.empty();
    }

    @Override
    public CompletionStage<Decision> decide(SpliceRequest request) {
      if (request.path().equals("/oom")) {
        throw new OutOfMemoryError("simulated");
      }
      SpliceServerIT.RecordingLease lease = new SpliceServerIT.RecordingLease();
      leases.add(lease);
      return CompletableFuture.completedFuture(new Decision.Forward(upstreamHost.get(),
          upstream.port(), "replica-1", List.of(), lease));
    }

    @Override
    public Answer upstreamFailed(Decision.Forward target, SpliceRequest request,
        UpstreamFailure failure, String detail) {
      return Answer.text(failure == UpstreamFailure.UNREACHABLE ? 503 : 502, failure.name());
    }
  };

  @BeforeEach
  void start() throws IOException {
    upstream = new ScriptedUpstream();
  }

  private void serve(SpliceSettings settings) throws IOException {
    server = SpliceServer.bind("127.0.0.1", 0, settings, dispatcher, fatal::set);
  }

  @AfterEach
  void stop() throws IOException {
    if (server != null) {
      server.close();
    }
    upstream.close();
  }

  private Socket client() throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.localAddress().getPort());
    socket.setSoTimeout(10_000);
    return socket;
  }

  private static String post(String body, String... headers) {
    StringBuilder request = new StringBuilder("POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n");
    for (int i = 0; i < headers.length; i += 2) {
      request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
    }
    return request.append("content-length: ").append(body.length()).append("\r\n\r\n")
        .append(body).toString();
  }

  /** Answers each request with its own body echoed in an SSE event: who got whose answer. */
  private static boolean echo(String request, java.util.Map<String, String> headers,
      OutputStream out, Socket socket) throws IOException {
    String body = request.substring(request.lastIndexOf('\n') + 1);
    out.write(ascii("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        + "transfer-encoding: chunked\r\n\r\n"));
    out.write(chunk("data: " + body + "\n\n"));
    out.write(ascii("0\r\n\r\n"));
    out.flush();
    return true;
  }

  @Test
  void smuggledLinesNeverReachTheReplica() throws Exception {
    serve(SpliceSettings.forTests(4096, 64 * 1024, TIMEOUTS));
    upstream.script = SpliceEdgeIT::echo;
    String[] attacks = {
        "X-Inj: a\n\nPOST /v1/chat/completions HTTP/1.1\nHost: b\nContent-Length: 6\n\nATTACK",
        "x-request-id: abc\u00e9",
        "X-A: v\u00f0",
        "X-A: a\rb",
        "X-A: a\u0000b",
    };
    for (String attack : attacks) {
      try (Socket socket = client()) {
        String request = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + attack
            + "\r\nContent-Length: 6\r\n\r\nATTACK";
        socket.getOutputStream().write(request.getBytes(
            java.nio.charset.StandardCharsets.ISO_8859_1));
        RawHttp.Response response = RawHttp.response(new BufferedInputStream(
            socket.getInputStream()));
        assertThat(response.status()).as(attack).isEqualTo(400);
      }
    }
    assertThat(upstream.requests).as("nothing reached the replica").isEmpty();
    assertThat(leases).as("nothing was routed").isEmpty();
  }

  @Test
  void anAnswerWithBytesAfterItsEndNeverReachesTheNextClient() throws Exception {
    serve(SpliceSettings.forTests(4096, 64 * 1024, TIMEOUTS));
    upstream.script = (request, headers, out, socket) -> {
      echo(request, headers, out, socket);
      // a second, unasked-for answer right behind the first: a desynchronised replica
      out.write(ascii("HTTP/1.1 200 OK\r\ncontent-length: 13\r\n\r\ndata: ATTACK\n"));
      out.flush();
      return true;
    };
    for (int i = 0; i < 5; i++) {
      try (Socket socket = client()) {
        socket.getOutputStream().write(ascii(post("victim-" + i)));
        RawHttp.Response response = RawHttp.response(new BufferedInputStream(
            socket.getInputStream()));
        assertThat(response.body()).isEqualTo("data: victim-" + i + "\n\n");
      }
    }
    assertThat(upstream.connections).as("no connection with stray bytes was reused")
        .hasValue(5);
  }

  @Test
  void aSlowHeadGets408WithinTheHeadTimeout() throws Exception {
    serve(SpliceSettings.forTests(4096, 64 * 1024, TIMEOUTS));
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"));
      long start = System.nanoTime();
      RawHttp.Response response = RawHttp.response(new BufferedInputStream(
          socket.getInputStream()));
      assertThat(response.status()).isEqualTo(408);
      assertThat(response.body()).contains("request_timeout").contains("head");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
    assertThat(server.stats().rejections("request_timeout")).isEqualTo(1);
  }

  @Test
  void aSlowBodyGets408AndItsBytesAreReturnedToTheBudget() throws Exception {
    serve(SpliceSettings.forTests(4096, 64 * 1024, TIMEOUTS));
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
          + "Content-Length: 50000\r\n\r\n" + "x".repeat(20_000)));
      Await.until(Duration.ofSeconds(5), "the body is buffered",
          () -> server.bufferedRequestBytes() >= 20_000);
      RawHttp.Response response = RawHttp.response(new BufferedInputStream(
          socket.getInputStream()));
      assertThat(response.status()).isEqualTo(408);
      assertThat(response.body()).contains("body");
    }
    Await.until(Duration.ofSeconds(5), "the budget is whole again",
        () -> server.bufferedRequestBytes() == 0);
    assertThat(upstream.requests).isEmpty();
  }

  @Test
  void uploadsBeyondTheBufferBudgetGet503AndTheIngressKeepsServing() throws Exception {
    serve(SpliceSettings.forTests(4096, 64 * 1024, TIMEOUTS).withLimits(100, 100_000));
    upstream.script = SpliceEdgeIT::echo;
    List<Socket> parked = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        Socket socket = client();
        parked.add(socket);
        try {
          socket.getOutputStream().write(ascii("POST /v1/chat/completions HTTP/1.1\r\nHost: x"
              + "\r\nContent-Length: 60000\r\n\r\n" + "x".repeat(40_000)));
        } catch (SocketException refusedWhileSending) {
          // the ingress answered 503 and closed while the body was still going out
        }
      }
      Await.until(Duration.ofSeconds(5), "uploads past the budget refused",
          () -> server.stats().rejections("overloaded") >= 2);
      assertThat(server.bufferedRequestBytes()).isLessThanOrEqualTo(100_000);
      // Which uploads were refused depends on arrival order; the others wait for their body
      // and time out (408). Every refused one is told why.
      for (Socket socket : parked) {
        socket.setSoTimeout(5000);
        try {
          RawHttp.Response response = RawHttp.response(new BufferedInputStream(
              socket.getInputStream()));
          if (response != null) {  // else the reset of the unread body overtook the answer
            assertThat(response.status()).isIn(503, 408);
            if (response.status() == 503) {
              assertThat(response.body()).contains("overloaded").contains("max-buffered");
            }
          }
        } catch (SocketException reset) {
          // likewise
        }
      }

      try (Socket victim = client()) {
        victim.getOutputStream().write(ascii(post("still-served")));
        assertThat(RawHttp.response(new BufferedInputStream(victim.getInputStream())).body())
            .isEqualTo("data: still-served\n\n");
      }
    } finally {
      for (Socket socket : parked) {
        socket.close();
      }
    }
    Await.until(Duration.ofSeconds(5), "parked uploads returned their bytes",
        () -> server.bufferedRequestBytes() == 0);
  }

  @Test
  void connectionsBeyondTheCapGet503AndClose() throws Exception {
    serve(SpliceSettings.forTests(4096, 64 * 1024, TIMEOUTS).withLimits(2, 1 << 20));
    try (Socket first = client(); Socket second = client()) {
      Await.until(Duration.ofSeconds(5), "two connections open",
          () -> server.openConnections() == 2);
      try (Socket third = client()) {
        InputStream in = new BufferedInputStream(third.getInputStream());
        RawHttp.Response response = RawHttp.response(in);
        assertThat(response.status()).isEqualTo(503);
        assertThat(response.body()).contains("max-connections");
        assertThat(in.read()).isEqualTo(-1);
      }
    }
    assertThat(server.stats().rejections("connection_limit")).isEqualTo(1);
  }

  @Test
  void aCredentialRefusedOnTheHeadIsAnsweredWithoutReadingTheBody() throws Exception {
    serve(SpliceSettings.forTests(4096, 64 * 1024, TIMEOUTS));
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
          + "Authorization: Bearer wrong\r\nContent-Length: 60000\r\n\r\n"));
      InputStream in = new BufferedInputStream(socket.getInputStream());
      RawHttp.Response response = RawHttp.response(in);
      assertThat(response.status()).isEqualTo(401);
      assertThat(response.header("connection")).isEqualTo("close");
      assertThat(in.read()).isEqualTo(-1);
    }
    assertThat(upstream.requests).isEmpty();
    assertThat(server.bufferedRequestBytes()).isZero();
  }

  @Test
  void aSilentReplicaMidStreamIsCutWithinTheStreamIdleTimeout() throws Exception {
    serve(SpliceSettings.forTests(4096, 64 * 1024, TIMEOUTS)
        .withStreamIdleTimeout(Duration.ofSeconds(1)));
    upstream.script = (request, headers, out, socket) -> {
      out.write(ascii("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"));
      out.write(chunk("data: first\n\n"));
      out.flush();
      try {
        Thread.sleep(30_000);  // then nothing: a replica that hangs mid-stream
      } catch (InterruptedException e) {
        return false;
      }
      return false;
    };
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("{}")));
      InputStream in = new BufferedInputStream(socket.getInputStream());
      long start = System.nanoTime();
      assertThat(RawHttp.line(in)).isEqualTo("HTTP/1.1 200 OK");
      RawHttp.fields(in);
      org.assertj.core.api.Assertions.assertThatThrownBy(() ->
              RawHttp.body(in, java.util.Map.of("transfer-encoding", "chunked")))
          .as("the client sees its stream break").isInstanceOf(IOException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
    leases.get(0).awaitEnd();
    assertThat(leases.get(0).releases).hasValue(1);
    assertThat(server.stats().cuts("replica_silent")).isEqualTo(1);
  }

  @Test
  void aClientThatStopsReadingIsCutAndItsLeaseReleased() throws Exception {
    serve(SpliceSettings.forTests(4096, 64 * 1024, TIMEOUTS)
        .withStreamIdleTimeout(Duration.ofSeconds(1)));
    upstream.script = (request, headers, out, socket) -> {
      out.write(ascii("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"));
      byte[] big = chunk("data: " + "y".repeat(60_000) + "\n\n");
      try {
        while (true) {
          out.write(big);
          out.flush();
        }
      } catch (IOException e) {
        return false;  // the ingress closed this connection
      }
    };
    try (Socket socket = new Socket()) {
      socket.setReceiveBufferSize(4096);
      socket.connect(server.localAddress());
      socket.getOutputStream().write(ascii(post("{}")));
      // never read: the ingress's queue for this client fills and stops moving
      Await.until(Duration.ofSeconds(10), "the stalled client was cut",
          () -> server.stats().cuts("client_stalled") == 1);
    }
    leases.get(0).awaitEnd();
    assertThat(leases.get(0).releases).hasValue(1);
  }

  @Test
  void aReplicaNamedByHostIsResolvedOffTheLoopAndAnUnknownNameFailsClosed() throws Exception {
    serve(SpliceSettings.forTests(4096, 64 * 1024, TIMEOUTS));
    upstream.script = SpliceEdgeIT::echo;
    upstreamHost.set("localhost");
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("by-name")));
      assertThat(RawHttp.response(new BufferedInputStream(socket.getInputStream())).body())
          .isEqualTo("data: by-name\n\n");
    }
    upstreamHost.set("no-such-replica.invalid");
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii(post("nowhere")));
      RawHttp.Response response = RawHttp.response(new BufferedInputStream(
          socket.getInputStream()));
      assertThat(response.status()).isEqualTo(503);
      assertThat(response.body()).isEqualTo("UNREACHABLE");
    }
    leases.get(1).awaitEnd();
    assertThat(leases.get(1).releases).hasValue(1);
  }

  @Test
  void anErrorOnASelectorThreadIsFatalNotADeadPort() throws Exception {
    serve(SpliceSettings.forTests(4096, 64 * 1024, TIMEOUTS));
    try (Socket socket = client()) {
      socket.getOutputStream().write(ascii("GET /oom HTTP/1.1\r\nHost: x\r\n\r\n"));
      Await.until(Duration.ofSeconds(5), "the fatal handler ran", () -> fatal.get() != null);
      assertThat(fatal.get()).isInstanceOf(OutOfMemoryError.class);
      assertThat(socket.getInputStream().read()).as("its connections are closed")
          .isEqualTo(-1);
    }
  }
}
