package dev.sluice.core.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class CompletionRequestTest {

  private static final ActorTestKit testKit = ActorTestKit.create(ConfigFactory
      .parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @Test
  void aRequestWithStopStringsAndASeedCrossesNodes() throws Exception {
    // The relayed path sends the parsed request back to the ingress in GenerateReply.Streaming.
    CompletionRequest request = new CompletionRequest(CompletionRequest.Kind.CHAT, "sim",
        "prompt", 9, true, true, false, 3, List.of("a", "b\n"), Optional.of(-5L));
    Serialization serialization = SerializationExtension.get(Adapter.toClassic(testKit.system()));
    Serializer serializer = serialization.findSerializerFor(request);

    Object back = serializer.fromBinary(serializer.toBinary(request), CompletionRequest.class);

    assertThat(back).isEqualTo(request);
  }

  @Test
  void aRequestWithoutStopOrSeedCrossesNodesToo() throws Exception {
    CompletionRequest request = new CompletionRequest(CompletionRequest.Kind.COMPLETION, "sim",
        "p", 1, false, false, false);
    Serializer serializer = SerializationExtension.get(Adapter.toClassic(testKit.system()))
        .findSerializerFor(request);

    assertThat(serializer.fromBinary(serializer.toBinary(request), CompletionRequest.class))
        .isEqualTo(request);
  }

  @Test
  void promptTokensAreOnePerFourCharactersAndAtLeastOne() {
    assertThat(CompletionRequest.promptTokens("")).isEqualTo(1);
    assertThat(CompletionRequest.promptTokens("abcd")).isEqualTo(1);
    assertThat(CompletionRequest.promptTokens("abcde")).isEqualTo(2);
  }

  @Test
  void noChoicesIsNotARequest() {
    assertThatThrownBy(() -> new CompletionRequest(CompletionRequest.Kind.CHAT, "sim", "p", 1,
        false, false, false, 0, List.of(), Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("n: 0");
  }
}
