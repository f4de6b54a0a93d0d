package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.BodyProbes;
import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.Sse;
import dev.sluice.deploy.haproxy.HaproxyConfig;
import dev.sluice.deploy.haproxy.RenderSettings;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The HAProxy data plane's edge, a real HAProxy with the generated config in front of a real
 * node's replicas and ingress: bodies too large, too slow or without a length, requests it
 * refuses itself, idle connections. What it answers is what the ingress answers, and nothing it
 * refuses reaches a replica.
 */
class HaproxyEdgeIT {

  private static final int ROUTED_PORT = 19208;
  /** A HAProxy rendered without the ingress ({@code sluice haproxy render} without it). */
  private static final int NO_INGRESS_PORT = 19209;
  private static final String CHAT = "/v1/chat/completions";

  private static SluiceNode node;
  private static Haproxy routed;
  private static Haproxy noIngress;

  @BeforeAll
  static void startAll() throws Exception {
    node = TestNodes.local(TestNodes.app(2, 0, 1, 32), ConfigFactory.empty());
    // With the node's ingress, as a node runs it (bodies without a length go there).
    routed = Haproxy.rendered(node, settings(ROUTED_PORT)
        .withIngress("127.0.0.1", node.ingressPort().orElseThrow()));
    noIngress = Haproxy.rendered(node, settings(NO_INGRESS_PORT));
  }

  private static RenderSettings settings(int port) {
    return new RenderSettings("127.0.0.1", port, "127.0.0.1",
        node.routerPort().orElseThrow(), 5, "", "x-session-id", Haproxy.routes(node));
  }

  @AfterAll
  static void stopAll() throws Exception {
    routed.close();
    noIngress.close();
    node.close();
  }

  /**
   * The ingress's answers to bodies too large or too slow, in its OpenAI shape, read by a client
   * that sends its whole body before it reads: a body over the limit is refused by the replica
   * once read to its end (a chunked one by the ingress, or with 411 by a HAProxy without it), a
   * Content-Length beyond what the replica would read by HAProxy at once, a stalled body by
   * HAProxy after 10 s.
   */
  @Test
  void bodiesTooLargeOrTooSlowGetTheIngresssAnswers() throws Exception {
    long limit = 8 << 20;
    RawHttp.Response declared = BodyProbes.post(ROUTED_PORT, CHAT, limit + 1, false);
    RawHttp.Response chunked = BodyProbes.post(ROUTED_PORT, CHAT, limit + 1, true);
    RawHttp.Response stalled = BodyProbes.stalled(ROUTED_PORT, CHAT, false,
        java.time.Duration.ofSeconds(30));
    RawHttp.Response huge = BodyProbes.announced(ROUTED_PORT, CHAT, 4 * limit + 1);

    assertThat(declared).isNotNull();
    assertThat(declared.status()).isEqualTo(413);
    assertThat(declared.header("x-sluice-served-by")).isNotNull();
    assertThat(Sse.json(declared.body()).at("/error/message").asText())
        .isEqualTo("The request body is " + (limit + 1) + " bytes; the limit is " + limit);
    assertThat(huge).isNotNull();
    assertThat(huge.status()).isEqualTo(413);
    assertThat(huge.header("x-sluice-served-by")).isNull();
    assertThat(Sse.json(huge.body()).at("/error/message").asText())
        .isEqualTo("The request body is " + (4 * limit + 1) + " bytes; the limit is " + limit);
    assertThat(chunked).isNotNull();
    assertThat(chunked.status()).isEqualTo(413);
    assertThat(Sse.json(chunked.body()).at("/error/message").asText())
        .isEqualTo("The request body is over the limit of " + limit + " bytes");
    RawHttp.Response withoutIngress = BodyProbes.post(NO_INGRESS_PORT, CHAT, 100, true);
    assertThat(withoutIngress).isNotNull();
    assertThat(withoutIngress.status()).isEqualTo(411);
    assertThat(Sse.json(withoutIngress.body()).at("/error/param").asText())
        .isEqualTo("Content-Length");
    assertThat(stalled).isNotNull();
    assertThat(stalled.status()).isEqualTo(408);
    assertThat(stalled.header("content-type")).isEqualTo("application/json");
    assertThat(Sse.json(stalled.body()).at("/error/code").asText()).isEqualTo("request_timeout");
  }

  /**
   * Requests HAProxy refuses itself reach no replica, among them those its parser takes but a
   * replica would read differently. Those its config's rules refuse get the ingress's OpenAI
   * shape. Those its parser refuses get its error files (the OpenAI shape too)
   * from HAProxy 3.3 on; before it, HAProxy's built-in HTML page.
   */
  @Test
  void requestsHaproxyRefusesReachNoReplica() throws Exception {
    long before = replicaRequests();
    String post = "POST " + CHAT + " HTTP/1.1\r\nHost: x\r\n";
    RawHttp.Response unparsable = RawClient.exchange(ROUTED_PORT, "GET / http/1.1\r\n\r\n");
    RawHttp.Response coding = RawClient.exchange(ROUTED_PORT,
        post + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n");
    RawHttp.Response old = RawClient.exchange(ROUTED_PORT, post.replace("1.1", "1.0")
        + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
    // A replica's endpoint (Pekko HTTP) took the CRLF after the lead byte 0xe0 into the value,
    // then the Content-Length line: it read no body, and the body as a next request.
    String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
    List<RawHttp.Response> leadBytes = new java.util.ArrayList<>();
    for (char bad : new char[] {'\u00e0', '\u0000', '\u007f'}) {
      leadBytes.add(RawClient.exchange(ROUTED_PORT, post + "X-A: b\r\nX-Bad: ab" + bad
          + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body));
    }

    assertThat(unparsable.status()).isEqualTo(400);
    assertThat(coding.status()).isEqualTo(422);
    // Was a 502 "the replica failed": the replica's endpoint reset the connection.
    assertThat(old.status()).isEqualTo(400);
    assertThat(old.header("content-type")).isEqualTo("application/json");
    assertThat(Sse.json(old.body()).at("/error/param").asText()).isEqualTo("Transfer-Encoding");
    assertThat(unparsable.header("connection")).isEqualTo("close");
    for (RawHttp.Response refused : leadBytes) {
      assertThat(refused.status()).isEqualTo(400);
      assertThat(refused.header("connection")).isEqualTo("close");
      assertThat(Sse.json(refused.body()).at("/error/message").asText())
          .isEqualTo("header x-bad has a control byte or a byte outside ASCII");
    }
    assertThat(replicaRequests()).isEqualTo(before);
  }

  /**
   * A body without a Content-Length (chunked; or over HTTP/2, which HAProxy sends on chunked)
   * goes to the node's ingress, which reads its trailers as strictly as a head. A replica's
   * endpoint took the CRLF after a lead byte in a trailer into it and waited, holding
   * the connection, for a trailer section that had ended: the client got no answer.
   */
  @Test
  void bodiesWithoutALengthAreReadByTheIngress() throws Exception {
    long before = replicaRequests();
    String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"t\"}]}";
    String head = "POST " + CHAT + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        + "\r\n" + Integer.toHexString(body.length()) + "\r\n" + body + "\r\n0\r\n";
    RawHttp.Response clean = RawClient.exchange(ROUTED_PORT, head + "x-t: ok\r\n\r\n");
    RawHttp.Response leadByte = RawClient.exchange(ROUTED_PORT,
        head + "x-t: ab\u00e0\r\n\r\n");

    assertThat(clean.status()).as(clean.body()).isEqualTo(200);
    assertThat(clean.header("x-sluice-served-by")).isNotNull();
    assertThat(leadByte.status()).isEqualTo(400);
    assertThat(Sse.json(leadByte.body()).at("/error/code").asText())
        .isEqualTo("invalid_request");
    // HTTP/2 has no chunked framing, but a body without a Content-Length is sent on chunked,
    // trailers too: it goes to the ingress as well.
    assertThat(H2Probe.post(ROUTED_PORT, CHAT, body, "x-t", "ok", 10_000)).isEqualTo(200);
    assertThat(H2Probe.post(ROUTED_PORT, CHAT, body, "x-t", "ab\u00e0", 10_000))
        .as("the answer to a trailer with a lead byte over HTTP/2 (0: none)").isEqualTo(400);
    assertThat(replicaRequests()).isEqualTo(before + 2);
  }

  /**
   * A kept-alive connection idle for longer than a request may take to arrive (10 s) still
   * takes the next request, as the ingress's does for 120 s (it was closed at 10 s).
   */
  @Test
  void aConnectionIdleBetweenRequestsStaysOpen() throws Exception {
    String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"idle\"}],"
        + "\"max_tokens\":2}";
    byte[] request = RawClient.bytes("POST " + CHAT + " HTTP/1.1\r\nHost: x\r\nContent-Length: "
        + body.length() + "\r\n\r\n" + body);
    try (java.net.Socket socket = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(),
        ROUTED_PORT)) {
      socket.setSoTimeout(15_000);
      java.io.InputStream in = new java.io.BufferedInputStream(socket.getInputStream());
      socket.getOutputStream().write(request);
      assertThat(RawHttp.response(in).status()).isEqualTo(200);
      // The idle time is what is tested: longer than HAProxy's timeout http-request.
      Thread.sleep(11_000);
      socket.getOutputStream().write(request);
      RawHttp.Response second = RawHttp.response(in);
      assertThat(second).as("an answer on the idle connection").isNotNull();
      assertThat(second.status()).isEqualTo(200);
    }
  }

  private static long replicaRequests() throws Exception {
    long total = 0;
    for (HaproxyConfig.Replica replica : Haproxy.replicas(node)) {
      total += Sse.json(TestNodes.get(replica.port(), "/-/stats").body()).get("requests")
          .asLong();
    }
    return total;
  }
}
