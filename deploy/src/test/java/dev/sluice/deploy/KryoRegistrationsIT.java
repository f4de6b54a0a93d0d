package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.serialization.ClusterMessage;
import dev.sluice.core.serialization.KryoRegistrations;
import dev.sluice.core.serialization.KryoSerializer;
import java.lang.reflect.Constructor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Every class in the merged registration list (all modules) round-trips through the Kryo
 * serializer, and every message type that crosses nodes is bound to it.
 */
class KryoRegistrationsIT {

  private static final Config CONFIG = ConfigFactory.parseString(
          "pekko.remote.artery.canonical.port = 0")
      .withFallback(ConfigFactory.parseResources("application-test-base.conf"))
      .withFallback(ConfigFactory.load());
  private static final ActorTestKit testKit = ActorTestKit.create("kryo", CONFIG);
  private static final ActorRef<Object> REF = testKit.<Object>createTestProbe().ref();

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void everyRegisteredClassRoundTrips() throws Exception {
    var classic = (ExtendedActorSystem) Adapter.toClassic(testKit.system());
    KryoSerializer serializer = new KryoSerializer(classic);
    Map<Class<?>, Integer> ids = KryoRegistrations.fromConfig(CONFIG,
        getClass().getClassLoader()).ids();
    assertThat(ids).hasSizeGreaterThan(20);

    List<String> checked = new ArrayList<>();
    for (Class<?> type : ids.keySet()) {
      for (Object sample : samples(type)) {
        Object back = serializer.fromBinary(serializer.toBinary(sample));
        assertThat(back).as(type.getName()).isEqualTo(sample);
      }
      checked.add(type.getName());
    }
    assertThat(checked).contains("dev.sluice.core.ReplicaSet",
        "dev.sluice.replica.NodeAgent$SpawnReplica", "dev.sluice.router.LLMRouter$Route");
  }

  @Test
  void everyClusterMessageIsBoundToKryo() throws Exception {
    var serialization = SerializationExtension.get(Adapter.toClassic(testKit.system()));
    for (Class<?> type : KryoRegistrations.fromConfig(CONFIG, getClass().getClassLoader())
        .ids().keySet()) {
      if (ClusterMessage.class.isAssignableFrom(type)) {
        assertThat(serialization.serializerFor(type)).as(type.getName())
            .isInstanceOf(KryoSerializer.class);
      }
    }
  }

  private static List<Object> samples(Class<?> type) throws Exception {
    if (type.isEnum()) {
      return List.of(type.getEnumConstants());
    }
    return List.of(sample(type));
  }

  private static Object sample(Type type) throws Exception {
    Class<?> raw = type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) type;
    Type[] args = type instanceof ParameterizedType p ? p.getActualTypeArguments() : new Type[0];
    if (raw == String.class || raw == Object.class) {
      return "s";
    }
    if (raw == int.class || raw == Integer.class) {
      return 7;
    }
    if (raw == long.class || raw == Long.class) {
      return 7L;
    }
    if (raw == double.class || raw == Double.class) {
      return 1.5;
    }
    if (raw == boolean.class || raw == Boolean.class) {
      return true;
    }
    if (raw == byte[].class) {
      return new byte[] {1, 2, 3};
    }
    if (raw == ReplicaId.class) {
      return ReplicaId.parse("llm#sim#abcd1234");
    }
    if (raw.isEnum()) {
      return raw.getEnumConstants()[0];
    }
    if (raw == List.class) {
      return List.of(sample(args[0]));
    }
    if (raw == Set.class) {
      return Set.of(sample(args[0]));
    }
    if (raw == Map.class) {
      return Map.of(sample(args[0]), sample(args[1]));
    }
    if (raw == Optional.class) {
      return Optional.of(sample(args[0]));
    }
    if (raw == org.apache.pekko.stream.SourceRef.class) {
      return org.apache.pekko.stream.javadsl.Source.single("token").runWith(
          org.apache.pekko.stream.javadsl.StreamRefs.sourceRef(),
          org.apache.pekko.stream.Materializer.matFromSystem(testKit.system()));
    }
    if (ActorRef.class.isAssignableFrom(raw)) {
      return REF;
    }
    if (raw.isSealed() && !raw.isRecord()) {
      return sample(raw.getPermittedSubclasses()[0]);
    }
    if (raw.isRecord()) {
      RecordComponent[] components = raw.getRecordComponents();
      Class<?>[] types = new Class<?>[components.length];
      Object[] values = new Object[components.length];
      for (int i = 0; i < components.length; i++) {
        types[i] = components[i].getType();
        values[i] = sample(components[i].getGenericType());
      }
      Constructor<?> constructor = raw.getDeclaredConstructor(types);
      constructor.setAccessible(true);
      return constructor.newInstance(values);
    }
    throw new AssertionError("no sample for " + type + ": teach this test about it");
  }
}
