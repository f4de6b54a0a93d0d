package dev.sluice.core.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.Pool;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Optional;
import java.util.UUID;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.JSerializer;

/**
 * Pekko serializer for {@link ClusterMessage}s backed by Kryo with class registration required: a
 * class that is not in {@link KryoRegistrations} cannot be written or read. Typed actor refs are
 * written as their serialization format and resolved on the receiving node.
 */
public final class KryoSerializer extends JSerializer {

  /** Pekko serializer id; must not collide with Pekko's own (which are below 100). */
  public static final int IDENTIFIER = 7_100_001;

  private final ExtendedActorSystem system;
  private final KryoRegistrations registrations;
  private final Pool<Kryo> kryos;
  private final Pool<Output> outputs;
  private volatile ActorRefResolver resolver;

  public KryoSerializer(ExtendedActorSystem system) {
    this.system = system;
    this.registrations =
        KryoRegistrations.fromConfig(system.settings().config(), system.dynamicAccess().classLoader());
    this.kryos = new Pool<>(true, false, 64) {
      @Override
      protected Kryo create() {
        return newKryo();
      }
    };
    this.outputs = new Pool<>(true, false, 64) {
      @Override
      protected Output create() {
        return new Output(512, -1);
      }
    };
  }

  @Override
  public int identifier() {
    return IDENTIFIER;
  }

  @Override
  public boolean includeManifest() {
    return false;
  }

  @Override
  public byte[] toBinary(Object o) {
    Kryo kryo = kryos.obtain();
    Output output = outputs.obtain();
    try {
      output.reset();
      kryo.writeClassAndObject(output, o);
      return output.toBytes();
    } finally {
      outputs.free(output);
      kryos.free(kryo);
    }
  }

  @Override
  public Object fromBinaryJava(byte[] bytes, Class<?> manifest) {
    Kryo kryo = kryos.obtain();
    try {
      return kryo.readClassAndObject(new Input(bytes));
    } finally {
      kryos.free(kryo);
    }
  }

  private Kryo newKryo() {
    Kryo kryo = new Kryo();
    kryo.setRegistrationRequired(true);
    kryo.setReferences(false);
    kryo.setClassLoader(system.dynamicAccess().classLoader());
    registerJdkTypes(kryo);
    kryo.register(actorRefClass(), new ActorRefSerializer(), 40);
    kryo.register(pekkoClass("org.apache.pekko.stream.impl.streamref.SourceRefImpl"),
        new PekkoDelegatingSerializer(), 41);
    registrations.ids().forEach((type, id) -> kryo.register(type, id));
    return kryo;
  }

  private static void registerJdkTypes(Kryo kryo) {
    kryo.register(ArrayList.class, 20);
    kryo.register(HashMap.class, 21);
    kryo.register(LinkedHashMap.class, 22);
    ImmutableCollectionSerializers.registerAll(kryo, 23);
    kryo.register(Optional.class, new OptionalSerializer(), 30);
    kryo.register(UUID.class, new com.esotericsoftware.kryo.serializers.DefaultSerializers.UUIDSerializer(), 31);
    kryo.register(byte[].class, 32);
  }

  private static Class<?> pekkoClass(String name) {
    try {
      return Class.forName(name);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(name + " not found", e);
    }
  }

  private static Class<?> actorRefClass() {
    try {
      return Class.forName("org.apache.pekko.actor.typed.internal.adapter.ActorRefAdapter");
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("Pekko typed ActorRefAdapter not found", e);
    }
  }

  private ActorRefResolver resolver() {
    ActorRefResolver current = resolver;
    if (current == null) {
      current = ActorRefResolver.get(Adapter.toTyped(system));
      resolver = current;
    }
    return current;
  }

  private final class ActorRefSerializer extends Serializer<ActorRef<?>> {
    @Override
    public void write(Kryo kryo, Output output, ActorRef<?> ref) {
      output.writeString(resolver().toSerializationFormat(ref));
    }

    @Override
    public ActorRef<?> read(Kryo kryo, Input input, Class<? extends ActorRef<?>> type) {
      return resolver().resolveActorRef(input.readString());
    }
  }

  /** Pekko types with their own serializer (stream refs) are written by Pekko's serialization. */
  private final class PekkoDelegatingSerializer extends Serializer<Object> {
    @Override
    public void write(Kryo kryo, Output output, Object value) {
      org.apache.pekko.serialization.Serialization serialization =
          org.apache.pekko.serialization.SerializationExtension.get(system);
      org.apache.pekko.serialization.Serializer delegate = serialization.findSerializerFor(value);
      byte[] bytes = delegate.toBinary(value);
      output.writeVarInt(delegate.identifier(), false);
      output.writeString(org.apache.pekko.serialization.Serializers.manifestFor(delegate, value));
      output.writeVarInt(bytes.length, true);
      output.writeBytes(bytes);
    }

    @Override
    public Object read(Kryo kryo, Input input, Class<? extends Object> type) {
      int id = input.readVarInt(false);
      String manifest = input.readString();
      byte[] bytes = input.readBytes(input.readVarInt(true));
      return org.apache.pekko.serialization.SerializationExtension.get(system)
          .deserialize(bytes, id, manifest).get();
    }
  }

  private static final class OptionalSerializer extends Serializer<Optional<?>> {
    @Override
    public void write(Kryo kryo, Output output, Optional<?> value) {
      kryo.writeClassAndObject(output, value.orElse(null));
    }

    @Override
    public Optional<?> read(Kryo kryo, Input input, Class<? extends Optional<?>> type) {
      return Optional.ofNullable(kryo.readClassAndObject(input));
    }
  }

}
