package dev.sluice.core.serialization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.core.ReplicaLoads;
import dev.sluice.core.ReplicaSet;
import dev.sluice.core.ReplicaState;
import dev.sluice.core.config.AutoscalingConfig;
import dev.sluice.core.config.DeploymentConfig;
import dev.sluice.core.config.EngineConfig;
import dev.sluice.core.config.LlmConfig;
import dev.sluice.core.config.RequestRouterConfig;
import dev.sluice.core.openai.AnswerPiece;
import dev.sluice.core.relay.AnswerChunk;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class KryoSerializerTest {

  private static final ActorTestKit testKit = ActorTestKit.create(
      ConfigFactory.parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  private KryoSerializer serializer() throws Exception {
    return (KryoSerializer) SerializationExtension.get(Adapter.toClassic(testKit.system()))
        .serializerFor(ReplicaSet.class);
  }

  @Test
  void clusterMessagesAreBoundToKryo() throws Exception {
    assertThat(SerializationExtension.get(Adapter.toClassic(testKit.system()))
        .serializerFor(ReplicaSet.class)).isInstanceOf(KryoSerializer.class);
  }

  @Test
  void replicaSetRoundTrips() throws Exception {
    ReplicaInfo replica = new ReplicaInfo(ReplicaId.parse("llm#sim#abcd1234"),
        "pekko://sluice@127.0.0.1:25520", "127.0.0.1", 30001, 64, ReplicaState.RUNNING,
        List.of("sim"));
    ReplicaSet set = new ReplicaSet(new DeploymentId("llm", "sim"), 7, "/", List.of("sim"),
        "round-robin", Map.of("num_virtual_nodes", 100L, "ratio", 0.5, "on", true,
            "names", List.of("a", "b")), List.of(replica));

    Object back = serializer().fromBinary(serializer().toBinary(set));

    assertThat(back).isEqualTo(set);
  }

  @Test
  void aNodesLoadReportsRoundTripTogether() throws Exception {
    ReplicaLoads loads = ReplicaLoads.of(
        new ReplicaLoad(ReplicaId.parse("llm#sim#abcd1234"), 3, 1, 8, 0.25, 0.5),
        new ReplicaLoad(ReplicaId.parse("llm#sim#efgh5678"), 0, 0, 8, 0, 0));

    Object back = serializer().fromBinary(serializer().toBinary(loads));

    assertThat(back).isEqualTo(loads);
  }

  @Test
  void aRelayedAnswerChunkRoundTripsWithItsPieces() throws Exception {
    AnswerChunk chunk = new AnswerChunk(List.of(AnswerPiece.text(0, "h\u00e9llo"),
        AnswerPiece.text(1, ""), AnswerPiece.end(1, "stop", 7)));

    Object back = serializer().fromBinary(serializer().toBinary(chunk));

    assertThat(back).isEqualTo(chunk);
    assertThat(((AnswerChunk) back).pieces().get(0).isEnd()).isFalse();
  }

  @Test
  void llmConfigsRoundTripWithEitherEngine() throws Exception {
    DeploymentConfig deployment = new DeploymentConfig("", 2, 64, 20, 10, 30,
        new RequestRouterConfig("round-robin", Map.of()), AutoscalingConfig.OFF);
    EngineConfig process = EngineConfig.openAiProcess(
            List.of("vllm", "serve", "{model}", "--port", "{port}"), EngineConfig.AUTO_PORT)
        .withProcess("/health", Map.of("CUDA_VISIBLE_DEVICES", "0", "HF_HOME", "/hf"), 900,
            "/metrics");
    EngineConfig oneVariable = process.withProcess("/h", Map.of("A", "1"), 1, "/m");
    for (EngineConfig engine : List.of(EngineConfig.simulated(20, 5, 128), process,
        oneVariable)) {
      LlmConfig llm = new LlmConfig("Qwen/Qwen3-0.6B", engine, deployment);

      Object back = serializer().fromBinary(serializer().toBinary(llm));

      assertThat(back).isEqualTo(llm);
    }
  }

  @Test
  void refusesUnregisteredClass() {
    record NotRegistered(String value) implements ClusterMessage {}

    assertThatThrownBy(() -> serializer().toBinary(new NotRegistered("x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not registered");
  }

  @Test
  void registrationListRejectsDuplicateIds() {
    var config = ConfigFactory.parseString("""
        sluice.core.kryo.registrations {
          "dev.sluice.core.ReplicaId" = 150
          "dev.sluice.core.ReplicaInfo" = 150
        }""");

    assertThatThrownBy(() -> KryoRegistrations.fromConfig(config, getClass().getClassLoader()))
        .hasMessageContaining("id 150 used by both");
  }

  @Test
  void registrationListRejectsMissingClass() {
    var config = ConfigFactory.parseString(
        "sluice.core.kryo.registrations { \"dev.sluice.Nope\" = 150 }");

    assertThatThrownBy(() -> KryoRegistrations.fromConfig(config, getClass().getClassLoader()))
        .hasMessageContaining("dev.sluice.Nope not found");
  }

  @Test
  void typedActorRefsRoundTrip() {
    var probe = testKit.<String>createTestProbe();
    ExtendedActorSystem classic = (ExtendedActorSystem) Adapter.toClassic(testKit.system());
    KryoSerializer serializer = new KryoSerializer(classic);

    Object back = serializer.fromBinary(serializer.toBinary(new RefHolder(probe.ref())));

    assertThat(((RefHolder) back).ref()).isEqualTo(probe.ref());
  }
}
