package dev.sluice.core.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kryo cannot construct the JDK's immutable collections ({@code List.of}, {@code List.copyOf},
 * {@code Map.of}, ...) reflectively; wire messages use them everywhere, so they get explicit
 * serializers that rebuild the same immutable kind.
 */
final class ImmutableCollectionSerializers {

  private ImmutableCollectionSerializers() {}

  /** Registers the JDK's immutable list, set and map classes from {@code firstId} on. */
  static int registerAll(Kryo kryo, int firstId) {
    int id = firstId;
    ListSerializer lists = new ListSerializer();
    for (Class<?> type : List.of(List.of().getClass(), List.of(1).getClass(),
        List.of(1, 2, 3).getClass())) {
      kryo.register(type, lists, id++);
    }
    SetSerializer sets = new SetSerializer();
    for (Class<?> type : List.of(Set.of(1).getClass(), Set.of(1, 2, 3).getClass())) {
      kryo.register(type, sets, id++);
    }
    MapSerializer maps = new MapSerializer();
    for (Class<?> type : List.of(Map.of().getClass(), Map.of(1, 1).getClass())) {
      kryo.register(type, maps, id++);
    }
    return id;
  }

  private static final class ListSerializer extends Serializer<List<?>> {
    ListSerializer() {
      setImmutable(true);
    }

    @Override
    public void write(Kryo kryo, Output output, List<?> list) {
      output.writeVarInt(list.size(), true);
      for (Object item : list) {
        kryo.writeClassAndObject(output, item);
      }
    }

    @Override
    public List<?> read(Kryo kryo, Input input, Class<? extends List<?>> type) {
      Object[] items = new Object[input.readVarInt(true)];
      for (int i = 0; i < items.length; i++) {
        items[i] = kryo.readClassAndObject(input);
      }
      return List.of(items);
    }
  }

  private static final class SetSerializer extends Serializer<Set<?>> {
    SetSerializer() {
      setImmutable(true);
    }

    @Override
    public void write(Kryo kryo, Output output, Set<?> set) {
      output.writeVarInt(set.size(), true);
      for (Object item : set) {
        kryo.writeClassAndObject(output, item);
      }
    }

    @Override
    public Set<?> read(Kryo kryo, Input input, Class<? extends Set<?>> type) {
      Object[] items = new Object[input.readVarInt(true)];
      for (int i = 0; i < items.length; i++) {
        items[i] = kryo.readClassAndObject(input);
      }
      return Set.of(items);
    }
  }

  private static final class MapSerializer extends Serializer<Map<?, ?>> {
    MapSerializer() {
      setImmutable(true);
    }

    @Override
    public void write(Kryo kryo, Output output, Map<?, ?> map) {
      output.writeVarInt(map.size(), true);
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        kryo.writeClassAndObject(output, entry.getKey());
        kryo.writeClassAndObject(output, entry.getValue());
      }
    }

    @Override
    public Map<?, ?> read(Kryo kryo, Input input, Class<? extends Map<?, ?>> type) {
      int size = input.readVarInt(true);
      Map<Object, Object> map = new LinkedHashMap<>();
      for (int i = 0; i < size; i++) {
        map.put(kryo.readClassAndObject(input), kryo.readClassAndObject(input));
      }
      return Map.copyOf(map);
    }
  }
}
