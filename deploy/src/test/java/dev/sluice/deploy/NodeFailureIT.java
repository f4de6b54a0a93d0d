package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.Sse;
import dev.sluice.replica.engine.SimulatedEngine;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Whole node processes under attack and faults (fixed loopback ports below 32768): parked uploads
 * against a small heap never take the ingress down, and an {@link Error} on a selector thread
 * ends the process instead of leaving a dead port behind a live node.
 */
class NodeFailureIT {

  private static final int INGRESS = 18600;
  private static final int REMOTING = 18601;
  private static final int FATAL = 18602;
  private static final String REPLICAS = "18610-18619";
  private static final int UPLOADS = 40;
  private static final int UPLOAD_BYTES = 6 * 1024 * 1024;

  @Test
  void parkedUploadsAgainstASmallHeapNeverStopTheIngress() throws Exception {
    Path app = TestNodes.appFile(TestNodes.app(1, 0, 0, 64));
    try (NodeProcess node = NodeProcess.start(List.of("-Xmx160m", "-XX:+UseSerialGC"),
        SluiceCli.class, List.of("local", "--config", app.toString(), "--port",
            String.valueOf(INGRESS), "--router-port", "-1", "--remoting-port",
            String.valueOf(REMOTING)),
        Map.of("SLUICE_REPLICA_PORT_RANGE", REPLICAS))) {
      node.awaitOutput("Sluice local is ready", Duration.ofSeconds(60));
      List<Socket> parked = new ArrayList<>();
      try {
        byte[] chunk = new byte[256 * 1024];
        java.util.Arrays.fill(chunk, (byte) 'x');
        int refused = 0;
        for (int i = 0; i < UPLOADS; i++) {
          Socket socket = new Socket(InetAddress.getLoopbackAddress(), INGRESS);
          parked.add(socket);
          try {
            OutputStream out = socket.getOutputStream();
            out.write(RawClient.bytes("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                + "Content-Length: " + (8 * 1024 * 1024) + "\r\n\r\n"));
            for (int sent = 0; sent < UPLOAD_BYTES; sent += chunk.length) {
              out.write(chunk);
            }
            socket.setSoTimeout(300);
            RawHttp.Response answer = RawHttp.response(socket.getInputStream());
            assertThat(answer.status()).isEqualTo(503);
            assertThat(answer.body()).contains("max-buffered-request-bytes");
            refused++;
          } catch (java.net.SocketTimeoutException parkedUpload) {
            // buffered, waiting for the rest of its body
          } catch (IOException reset) {
            refused++;  // refused and closed while its body was still going out
          }
        }
        assertThat(refused).as("uploads refused past the buffer budget").isPositive();
        assertThat(node.process.isAlive()).isTrue();

        HttpResponse<String> victim = TestNodes.post(INGRESS, "/v1/chat/completions",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"still here\"}],\"max_tokens\":4}");
        assertThat(victim.statusCode()).isEqualTo(200);
        assertThat(Sse.json(victim.body()).at("/choices/0/message/content").asText())
            .isEqualTo(SimulatedEngine.text("still here", 4));
      } finally {
        for (Socket socket : parked) {
          socket.close();
        }
      }
      assertThat(node.output()).doesNotContain("OutOfMemoryError");
      assertThat(TestNodes.get(INGRESS, "/-/healthz").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void anErrorOnASelectorThreadEndsTheProcess() throws Exception {
    try (NodeProcess node = NodeProcess.start(List.of("-Xmx128m"), FatalLoopMain.class,
        List.of(String.valueOf(FATAL)), Map.of())) {
      node.awaitOutput("ready", Duration.ofSeconds(30));
      try {
        RawHttp.Response ignored = RawClient.exchange(FATAL,
            "GET /-/healthz HTTP/1.1\r\nHost: x\r\n\r\n");
      } catch (IOException expected) {
        // the connection is closed as the loop dies
      }
      assertThat(node.process.waitFor(30, TimeUnit.SECONDS)).as("the process exited").isTrue();
      assertThat(node.process.exitValue()).isEqualTo(FatalErrors.EXIT_CODE);
      assertThat(node.output()).contains("Fatal error in the ingress's splice");
      Files.deleteIfExists(node.log);
    }
  }
}
