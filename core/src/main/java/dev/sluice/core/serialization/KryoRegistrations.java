package dev.sluice.core.serialization;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one registration list every node shares: {@code sluice.core.kryo.registrations}, an object
 * from fully qualified class name to a fixed Kryo id. Each module adds its own classes in its own
 * {@code reference.conf} inside its id range (HOCON objects merge across files), so the list is the
 * same on every node running the same build. Ids below {@link #FIRST_APPLICATION_ID} belong to
 * the JDK and Pekko types the serializer registers itself.
 */
public final class KryoRegistrations {

  public static final String CONFIG_PATH = "sluice.core.kryo.registrations";
  public static final int FIRST_APPLICATION_ID = 100;

  private final Map<Class<?>, Integer> ids;

  private KryoRegistrations(Map<Class<?>, Integer> ids) {
    this.ids = Collections.unmodifiableMap(ids);
  }

  /** Reads and validates the list: every class must load and every id must be unique. */
  public static KryoRegistrations fromConfig(Config config, ClassLoader loader) {
    Map<Integer, String> byId = new HashMap<>();
    Map<Class<?>, Integer> ids = new LinkedHashMap<>();
    // Sorted by id so that the registration order, and thus any implicit state, is the same
    // everywhere.
    Map<Integer, String> sorted = new TreeMap<>();
    for (Map.Entry<String, ConfigValue> entry : config.getObject(CONFIG_PATH).entrySet()) {
      Object raw = entry.getValue().unwrapped();
      if (!(raw instanceof Number number)) {
        throw new IllegalArgumentException(
            CONFIG_PATH + ".\"" + entry.getKey() + "\": " + raw + " (expected: an integer id)");
      }
      int id = number.intValue();
      if (id < FIRST_APPLICATION_ID) {
        throw new IllegalArgumentException(CONFIG_PATH + ".\"" + entry.getKey() + "\": " + id
            + " (expected: >= " + FIRST_APPLICATION_ID + ")");
      }
      String previous = byId.put(id, entry.getKey());
      if (previous != null) {
        throw new IllegalArgumentException(CONFIG_PATH + ": id " + id + " used by both "
            + previous + " and " + entry.getKey() + " (expected: unique ids)");
      }
      sorted.put(id, entry.getKey());
    }
    for (Map.Entry<Integer, String> entry : sorted.entrySet()) {
      try {
        ids.put(Class.forName(entry.getValue(), false, loader), entry.getKey());
      } catch (ClassNotFoundException e) {
        throw new IllegalArgumentException(
            CONFIG_PATH + ": class " + entry.getValue() + " not found", e);
      }
    }
    return new KryoRegistrations(ids);
  }

  /** Class to id, in id order. */
  public Map<Class<?>, Integer> ids() {
    return ids;
  }
}
