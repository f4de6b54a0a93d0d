package dev.sluice.controller.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.controller.Controller;
import dev.sluice.controller.ControllerSettings;
import dev.sluice.controller.OneNodeCluster;
import dev.sluice.core.cluster.SingletonWatch;
import dev.sluice.core.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a write answers when the controller is slow, by stage: before the write is sent (nothing
 * changed), while it is unconfirmed (it may have been stored), and after it was stored (202: it
 * was). A stand-in controller answers or stays silent on cue.
 */
class ControllerApiWritesIT {

  private static final int PORT = 18951;
  private static final ActorTestKit testKit = OneNodeCluster.start("control");
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  /** Whether the stand-in answers status reads, and whether it confirms writes. */
  private static final AtomicBoolean reads = new AtomicBoolean();
  private static final AtomicBoolean confirms = new AtomicBoolean();
  private static final AtomicBoolean silentAfterWrite = new AtomicBoolean();
  private static ControllerApi api;
  private static ServerBinding binding;

  @BeforeAll
  static void start() throws Exception {
    Await.until(Duration.ofSeconds(10), "this node up as the control node",
        () -> SingletonWatch.get(testKit.system()).unavailable().isEmpty());
    ActorRef<Controller.Command> controller = testKit.spawn(Behaviors.receiveMessage(command -> {
      if (command instanceof Controller.GetStatus get && reads.get()) {
        get.replyTo().tell(new Controller.StatusDocument("{\"applications\":[]}"));
      } else if (command instanceof Controller.PatchDeployment patch && confirms.get()) {
        reads.set(!silentAfterWrite.get());
        patch.replyTo().tell(new Controller.WriteResult(200, "stored and applied"));
      }
      return Behaviors.same();
    }));
    api = new ControllerApi(testKit.system(), controller, ControllerSettings.fromConfig(
        ConfigFactory.parseString("""
            sluice.controller.write-timeout = 300ms
            sluice.controller.api.ask-timeout = 300ms
            sluice.controller.api.port = %d
            """.formatted(PORT)).withFallback(testKit.system().settings().config())),
        config -> { });
    binding = api.bind().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    api.close();
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void answering() {
    reads.set(true);
    confirms.set(true);
    silentAfterWrite.set(false);
  }

  @Test
  void aConfirmedWriteAnswersTheStatusTree() throws Exception {
    HttpResponse<String> answer = patch();
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(answer.body()).isEqualTo("{\"applications\":[]}");
  }

  @Test
  void noAnswerBeforeTheWriteMeansNothingChanged() throws Exception {
    reads.set(false);
    HttpResponse<String> answer = patch();
    assertThat(answer.statusCode()).isEqualTo(503);
    assertThat(answer.body()).contains("did not answer in time (within 300 ms")
        .contains("; nothing was changed");
  }

  @Test
  void anUnconfirmedWriteMayHaveBeenStored() throws Exception {
    confirms.set(false);
    HttpResponse<String> answer = patch();
    assertThat(answer.statusCode()).isEqualTo(503);
    assertThat(answer.body()).contains("did not answer in time (within 600 ms")
        .contains("the change was sent and may have been stored: GET /api/applications shows "
            + "what is in effect")
        .doesNotContain("nothing was changed");
  }

  @Test
  void aStoredWriteWhoseStatusCannotBeReadIsA202SayingSo() throws Exception {
    silentAfterWrite.set(true);
    HttpResponse<String> answer = patch();
    assertThat(answer.statusCode()).isEqualTo(202);
    assertThat(answer.body()).isEqualTo("{\"message\":\"The change was stored; its status "
        + "could not be read within 300 ms (the controller is busy, or moving): GET "
        + "/api/applications shows it\"}");
  }

  private static HttpResponse<String> patch() throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + PORT
            + "/api/applications/llm/deployments/sim"))
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"num_replicas\": 2}"))
        .header("content-type", "application/json").timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
