package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.BodyProbes;
import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.Sse;
import dev.sluice.deploy.haproxy.HaproxyConfig;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The HAProxy a node runs holds clients to the node's own ingress timeouts (set shorter here than
 * HAProxy's fixed defaults were), so a client meets the same limits through either data plane.
 */
class HaproxyTimeoutsIT {

  private static final int HAPROXY_PORT = 19210;
  private static final String CHAT = "/v1/chat/completions";

  @Test
  void bothDataPlanesOfANodeCloseIdleConnectionsAndStalledBodiesAtItsTimeouts()
      throws Exception {
    try (SluiceNode node = TestNodes.local(TestNodes.app(1, 0, 1, 8), ConfigFactory.parseString(
        "sluice.haproxy.port = " + HAPROXY_PORT + "\n"
            + "sluice.ingress.splice.head-timeout = 1s\n"
            + "sluice.ingress.splice.body-timeout = 1s\n"
            + "sluice.ingress.splice.client-idle-timeout = 2s\n"))) {
      Await.until(Duration.ofSeconds(30), "HAProxy's server for the replica",
          () -> node.haproxy().orElseThrow().runningConfig().lines().anyMatch(line ->
              line.startsWith("  server ")
                  && !line.startsWith("  server " + HaproxyConfig.DYNAMIC_SERVER + " ")));
      Map<Integer, String> stalledBody = Map.of(
          node.ingressPort().orElseThrow(), "The request body did not arrive within 1 s",
          HAPROXY_PORT, "The request did not arrive within 1 s");
      for (var plane : stalledBody.entrySet()) {
        int port = plane.getKey();
        assertThat(idleSeconds(port)).as("port %d: an idle connection closed after", port)
            .isBetween(1.5, 8.0);

        long start = System.nanoTime();
        RawHttp.Response stalled = BodyProbes.stalled(port, CHAT, false,
            Duration.ofSeconds(30));
        double seconds = (System.nanoTime() - start) / 1e9;
        assertThat(stalled).as("port %d: an answer to a stalled body", port).isNotNull();
        assertThat(stalled.status()).isEqualTo(408);
        assertThat(seconds).as("port %d: 408 after", port).isBetween(0.9, 8.0);
        assertThat(Sse.json(stalled.body()).at("/error/message").asText())
            .isEqualTo(plane.getValue());
      }
    }
  }

  /** Seconds from an answer on a kept-alive connection until the server closes it. */
  private static double idleSeconds(int port) throws Exception {
    String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"idle\"}],\"max_tokens\":2}";
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      // Well beyond what is tested: a server still at the old 10 s or 120 s fails the read.
      socket.setSoTimeout(20_000);
      InputStream in = new BufferedInputStream(socket.getInputStream());
      socket.getOutputStream().write(RawClient.bytes("POST " + CHAT + " HTTP/1.1\r\nHost: x\r\n"
          + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n"
          + body));
      assertThat(RawHttp.response(in).status()).isEqualTo(200);
      long answered = System.nanoTime();
      assertThat(in.read()).as("nothing but the close").isEqualTo(-1);
      return (System.nanoTime() - answered) / 1e9;
    }
  }
}
