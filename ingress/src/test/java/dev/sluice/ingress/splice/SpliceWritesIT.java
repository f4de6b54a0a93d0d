package dev.sluice.ingress.splice;

import static dev.sluice.ingress.splice.ScriptedUpstream.ascii;
import static dev.sluice.ingress.splice.ScriptedUpstream.chunk;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How the splice writes an answer to its client, seen as TCP segments on the client's socket
 * ({@code ss}'s {@code data_segs_in}) and as chunks: a head that came with body bytes leaves
 * with them in one write, a head that came alone leaves at once, and chunks read together leave
 * as one.
 */
class SpliceWritesIT {

  private static final SpliceSettings SETTINGS =
      SpliceSettings.forTests(4096, 64 * 1024, Duration.ofSeconds(1));
  private static final String HEAD = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
      + "transfer-encoding: chunked\r\n\r\n";

  private final CountDownLatch rest = new CountDownLatch(1);
  private ScriptedUpstream upstream;
  private SpliceServer server;

  @BeforeEach
  void start() throws IOException {
    upstream = new ScriptedUpstream();
    SpliceDispatcher dispatcher = new DecidingDispatcher() {
      @Override
      public CompletionStage<Decision> decide(SpliceRequest request) {
        return CompletableFuture.completedFuture(new Decision.Forward("127.0.0.1",
            upstream.port(), "replica-1", List.of(), Decision.Lease.NONE));
      }
    };
    server = SpliceServer.bind("127.0.0.1", 0, SETTINGS, dispatcher, fatal -> { });
  }

  @AfterEach
  void stop() throws IOException {
    rest.countDown();
    server.close();
    upstream.close();
  }

  @Test
  void aHeadThatCameWithBodyBytesLeavesWithThemInOneWrite() throws Exception {
    answerInTwoWrites(concat(ascii(HEAD), chunk("data: first\n\n")));  // one segment
    try (Socket client = client()) {
      InputStream in = client.getInputStream();
      String seen = readUntil(in, "data: first\n\n\r\n");

      assertThat(seen).startsWith("HTTP/1.1 200 OK").contains("x-sluice-replica: replica-1");
      assertThat(dataSegmentsIn(client)).as("segments the client received for head and first "
          + "token").isEqualTo(1);
      rest.countDown();
      assertThat(readUntil(in, "0\r\n\r\n")).contains("data: [DONE]");
    }
  }

  @Test
  void aHeadThatCameAloneIsNotHeldForTheBody() throws Exception {
    answerInTwoWrites(ascii(HEAD));
    try (Socket client = client()) {
      InputStream in = client.getInputStream();

      assertThat(readUntil(in, "\r\n\r\n")).startsWith("HTTP/1.1 200 OK");
      rest.countDown();
      assertThat(readUntil(in, "0\r\n\r\n")).contains("data: [DONE]");
    }
  }

  @Test
  void chunksThatArriveTogetherReachTheClientAsOneChunk() throws Exception {
    upstream.script = (request, headers, out, socket) -> {
      byte[] tokens = concat(concat(chunk("data: a\n\n"), chunk("data: b\n\n")),
          chunk("data: c\n\n"));
      out.write(concat(concat(ascii(HEAD), tokens), ascii("0\r\n\r\n")));
      out.flush();
      return true;
    };
    try (Socket client = client()) {
      String answer = readUntil(client.getInputStream(), "0\r\n\r\n");

      assertThat(answer.substring(answer.indexOf("\r\n\r\n") + 4))
          .isEqualTo("1b\r\ndata: a\n\ndata: b\n\ndata: c\n\n\r\n0\r\n\r\n");
    }
  }

  private Socket client() throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.localAddress().getPort());
    socket.setSoTimeout(10_000);
    String body = "{\"prompt\":\"x\"}";
    socket.getOutputStream().write(ascii("POST /v1/completions HTTP/1.1\r\nhost: x\r\n"
        + "content-length: " + body.length() + "\r\n\r\n" + body));
    return socket;
  }

  /** The replica writes {@code first}, then the rest of an SSE answer once the test says so. */
  private void answerInTwoWrites(byte[] first) {
    upstream.script = (request, headers, out, socket) -> {
      out.write(first);
      out.flush();
      awaitRest();
      out.write(concat(chunk("data: [DONE]\n\n"), ascii("0\r\n\r\n")));
      out.flush();
      return true;
    };
  }

  private void awaitRest() throws IOException {
    try {
      if (!rest.await(10, TimeUnit.SECONDS)) {
        throw new IOException("the test never let the rest of the answer go");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** Reads until {@code end} was read (the read times out after the socket's 10 s). */
  private static String readUntil(InputStream in, String end) throws IOException {
    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    while (!seen.toString(StandardCharsets.ISO_8859_1).endsWith(end)) {
      int read = in.read(buffer);
      if (read < 0) {
        throw new IOException("connection ended after: " + seen);
      }
      seen.write(buffer, 0, read);
    }
    return seen.toString(StandardCharsets.ISO_8859_1);
  }

  /** TCP segments with data the socket received so far, as the kernel counts them. */
  private static int dataSegmentsIn(Socket socket) throws Exception {
    Process ss = new ProcessBuilder("ss", "-tinH", "state", "established",
        "( sport = :" + socket.getLocalPort() + " )").redirectErrorStream(true).start();
    String output = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(ss.waitFor()).as("ss (iproute2) ran: " + output).isZero();
    Matcher count = Pattern.compile("data_segs_in:(\\d+)").matcher(output);
    assertThat(count.find()).as("ss reported data_segs_in: " + output).isTrue();
    return Integer.parseInt(count.group(1));
  }

  private static byte[] concat(byte[] first, byte[] second) {
    byte[] both = java.util.Arrays.copyOf(first, first.length + second.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    return both;
  }
}
