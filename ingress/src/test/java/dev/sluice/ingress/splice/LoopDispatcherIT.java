package dev.sluice.ingress.splice;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.testing.RawHttp;
import dev.sluice.ingress.edge.Answer;
import java.io.BufferedInputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The router's executor against a real splice server: work scheduled from a request's decision
 * (as the router's mailbox is when the splice asks it) runs on that request's splice thread, and
 * the decision it completes is acted on there; work from any other thread runs elsewhere.
 */
class LoopDispatcherIT {

  private static final SpliceSettings SETTINGS =
      SpliceSettings.forTests(4096, 64 * 1024, Duration.ofSeconds(1));

  @Test
  void workScheduledFromASpliceThreadRunsOnItAndOtherWorkElsewhere() throws Exception {
    ExecutorService elsewhere = Executors.newSingleThreadExecutor(
        task -> new Thread(task, "elsewhere"));
    LoopDispatcher.LoopFirst executor = new LoopDispatcher.LoopFirst(elsewhere);
    CompletableFuture<String> decidedOn = new CompletableFuture<>();
    CompletableFuture<String> ranOn = new CompletableFuture<>();
    SpliceDispatcher dispatcher = new DecidingDispatcher() {
      @Override
      public CompletionStage<Decision> decide(SpliceRequest request) {
        decidedOn.complete(Thread.currentThread().getName());
        CompletableFuture<Decision> decision = new CompletableFuture<>();
        executor.execute(() -> {
          ranOn.complete(Thread.currentThread().getName());
          decision.complete(new Decision.Respond(Answer.text(200, "routed")));
        });
        return decision;
      }

    };
    try (SpliceServer server = SpliceServer.bind("127.0.0.1", 0, SETTINGS, dispatcher,
        fatal -> { });
        Socket socket = new Socket(InetAddress.getLoopbackAddress(),
            server.localAddress().getPort())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(("POST /v1/completions HTTP/1.1\r\nhost: x\r\n"
          + "content-length: 2\r\n\r\n{}").getBytes(StandardCharsets.ISO_8859_1));
      RawHttp.Response response = RawHttp.response(new BufferedInputStream(
          socket.getInputStream()));
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("routed");
    }
    assertThat(decidedOn.get(5, TimeUnit.SECONDS)).startsWith("sluice-splice-");
    assertThat(ranOn.get(5, TimeUnit.SECONDS)).isEqualTo(decidedOn.get());

    CompletableFuture<String> fromHere = new CompletableFuture<>();
    executor.execute(() -> fromHere.complete(Thread.currentThread().getName()));
    assertThat(fromHere.get(5, TimeUnit.SECONDS)).isEqualTo("elsewhere");
    executor.shutdown();
    assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  /**
   * The router's mailbox reschedules itself on the loop after a few messages: a flood of such
   * work must not keep the loop from its other connections until the flood ends.
   */
  @Test
  void aFloodOfWorkOnALoopLetsItsOtherConnectionsThrough() throws Exception {
    Duration timeouts = Duration.ofSeconds(5);
    SpliceSettings oneLoop = new SpliceSettings(1, 128, 1000, 64L * 1024 * 1024, 4096,
        64 * 1024, timeouts, timeouts, timeouts, timeouts, Duration.ofSeconds(30), timeouts,
        Duration.ofSeconds(30), Duration.ofSeconds(30));
    LoopDispatcher.LoopFirst executor =
        new LoopDispatcher.LoopFirst(Executors.newSingleThreadExecutor());
    int total = 2000;
    AtomicInteger done = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    CompletableFuture<Integer> floodWhenDecided = new CompletableFuture<>();
    Runnable step = new Runnable() {
      @Override
      public void run() {
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);  // 1 ms of work
        if (done.incrementAndGet() < total && !stop.get()) {
          executor.execute(this);
        }
      }
    };
    SpliceDispatcher dispatcher = new DecidingDispatcher() {
      @Override
      public CompletionStage<Decision> decide(SpliceRequest request) {
        if (request.path().equals("/flood")) {
          executor.execute(step);
        } else {
          floodWhenDecided.complete(done.get());
        }
        return CompletableFuture.completedFuture(new Decision.Respond(Answer.text(200, "ok")));
      }

    };
    try (SpliceServer server = SpliceServer.bind("127.0.0.1", 0, oneLoop, dispatcher,
        fatal -> { })) {
      assertThat(exchange(server, "/flood").status()).isEqualTo(200);
      assertThat(exchange(server, "/other").status()).isEqualTo(200);
      assertThat(floodWhenDecided.get(10, TimeUnit.SECONDS))
          .as("flood steps run before the other connection's request was decided")
          .isLessThan(total / 2);
    } finally {
      stop.set(true);
      executor.shutdown();
    }
  }

  private static RawHttp.Response exchange(SpliceServer server, String path) throws Exception {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(),
        server.localAddress().getPort())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(("POST " + path + " HTTP/1.1\r\nhost: x\r\n"
          + "content-length: 2\r\n\r\n{}").getBytes(StandardCharsets.ISO_8859_1));
      return RawHttp.response(new BufferedInputStream(socket.getInputStream()));
    }
  }
}
