package dev.sluice.router.spi;

import dev.sluice.router.policy.roundrobin.RoundRobinRouter;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The one registry of built-in policies, by key. A key that is not registered but looks like a
 * class name is loaded as an outside policy: a public class implementing {@link RequestRouter}
 * with a public constructor taking {@code Map<String, Object>} kwargs (or none).
 */
public final class RequestRouters {

  private static final Map<String, RequestRouterFactory> BUILT_IN = builtIn();

  private RequestRouters() {}

  private static Map<String, RequestRouterFactory> builtIn() {
    Map<String, RequestRouterFactory> registry = new TreeMap<>();
    register(registry, RoundRobinRouter.KEY, RoundRobinRouter::create);
    return Collections.unmodifiableMap(registry);
  }

  private static void register(
      Map<String, RequestRouterFactory> registry, String key, RequestRouterFactory factory) {
    if (registry.putIfAbsent(key, factory) != null) {
      throw new IllegalStateException("request router key registered twice: " + key);
    }
  }

  /** Registered keys, sorted. */
  public static java.util.Set<String> keys() {
    return BUILT_IN.keySet();
  }

  /**
   * A new policy for {@code routerClass} (a key or a class name). Fails with a message naming the
   * known keys or the bad kwarg.
   */
  public static RequestRouter create(String routerClass, Map<String, Object> kwargs) {
    Objects.requireNonNull(routerClass, "routerClass");
    Objects.requireNonNull(kwargs, "kwargs");
    RequestRouterFactory factory = BUILT_IN.get(routerClass);
    if (factory != null) {
      return factory.create(kwargs);
    }
    if (routerClass.contains(".")) {
      return load(routerClass, kwargs);
    }
    throw new IllegalArgumentException("request_router_class: '" + routerClass
        + "' (expected: one of " + String.join(", ", keys()) + ", or a fully qualified class name)");
  }

  private static RequestRouter load(String className, Map<String, Object> kwargs) {
    try {
      Class<?> type = Class.forName(className);
      if (!RequestRouter.class.isAssignableFrom(type)) {
        throw new IllegalArgumentException("request_router_class: '" + className
            + "' (expected: a class implementing " + RequestRouter.class.getName() + ")");
      }
      try {
        return (RequestRouter) type.getConstructor(Map.class).newInstance(kwargs);
      } catch (NoSuchMethodException e) {
        if (!kwargs.isEmpty()) {
          throw new IllegalArgumentException("request_router_kwargs: " + kwargs.keySet()
              + " (expected: none, " + className + " takes no kwargs)");
        }
        return (RequestRouter) type.getConstructor().newInstance();
      }
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("request_router_class: '" + className
          + "' not found (expected: one of " + String.join(", ", keys())
          + ", or a class on the classpath)", e);
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(
          "request_router_class: cannot instantiate '" + className + "': " + e, e);
    }
  }
}
