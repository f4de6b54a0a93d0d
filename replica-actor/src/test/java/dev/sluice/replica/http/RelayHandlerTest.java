package dev.sluice.replica.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.config.EngineConfig;
import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.core.relay.Generate;
import dev.sluice.core.relay.GenerateReply;
import dev.sluice.core.relay.TokenBatch;
import dev.sluice.core.testing.Sse;
import dev.sluice.replica.engine.SimulatedEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The replica's side of the relayed path, with the OpenAI fields it can and cannot relay. */
class RelayHandlerTest {

  private static final ActorTestKit testKit = ActorTestKit.create(ConfigFactory
      .parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
  private static ReplicaHttpHandler handler;

  @BeforeAll
  static void start() {
    handler = new ReplicaHttpHandler(testKit.system(), new ReplicaEndpointSettings(
        "llm#sim#relay001", "sim", 4, 8, 4096, 1 << 20, Duration.ofSeconds(5),
        Duration.ofSeconds(5), Duration.ofSeconds(5)),
        new SimulatedEngine(new EngineConfig("simulated", 0, 0, 8, 4096, 4, 64)));
  }

  @AfterAll
  static void stop() {
    handler.close();
    testKit.shutdownTestKit();
  }

  private static GenerateReply generate(String body) throws Exception {
    return handler.relay().generate(new Generate("r-" + body.hashCode(),
        CompletionRequest.Kind.COMPLETION, body.getBytes(StandardCharsets.UTF_8),
        Optional.empty(), testKit.<GenerateReply>createTestProbe().ref()))
        .toCompletableFuture().get();
  }

  @Test
  void aSeedReachesTheEngineOnTheRelayedPath() throws Exception {
    GenerateReply reply = generate("{\"prompt\":\"relayed\",\"max_tokens\":6,\"seed\":3}");

    assertThat(reply).isInstanceOf(GenerateReply.Streaming.class);
    List<TokenBatch> batches = ((GenerateReply.Streaming) reply).tokens().getSource()
        .runWith(Sink.seq(), testKit.system()).toCompletableFuture().get();
    assertThat(String.join("", batches.stream().flatMap(b -> b.tokens().stream()).toList()))
        .isEqualTo(SimulatedEngine.text("relayed", Optional.of(3L), 0, 6));
  }

  @Test
  void moreChoicesOrStopStringsAreRefusedOnTheRelayedPathNamingTheField() throws Exception {
    GenerateReply many = generate("{\"prompt\":\"p\",\"n\":2}");
    GenerateReply stop = generate("{\"prompt\":\"p\",\"stop\":[\"x\"]}");

    assertThat(many).isInstanceOf(GenerateReply.Refused.class);
    GenerateReply.Refused refusedMany = (GenerateReply.Refused) many;
    assertThat(refusedMany.status()).isEqualTo(400);
    assertThat(Sse.json(refusedMany.errorJson()).at("/error/param").asText()).isEqualTo("n");
    GenerateReply.Refused refusedStop = (GenerateReply.Refused) stop;
    assertThat(Sse.json(refusedStop.errorJson()).at("/error/param").asText()).isEqualTo("stop");
    assertThat(Sse.json(refusedStop.errorJson()).at("/error/message").asText())
        .startsWith("stop: \"x\" (expected: none on the relayed path");
    assertThat(handler.slots().ongoing()).isZero();
  }
}
