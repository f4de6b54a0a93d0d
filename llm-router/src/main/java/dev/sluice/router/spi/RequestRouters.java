package dev.sluice.router.spi;

import dev.sluice.router.policy.capacityqueue.CapacityQueueRouter;
import dev.sluice.router.policy.consistenthash.ConsistentHashRouter;
import dev.sluice.router.policy.poweroftwo.PowerOfTwoRouter;
import dev.sluice.router.policy.prefixaffinity.PrefixCacheAffinityRouter;
import dev.sluice.router.policy.roundrobin.RoundRobinRouter;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The one registry of built-in policies, by key; duplicates are rejected. A key that is not
 * registered but looks like a class name is loaded as an outside policy: a public class
 * implementing {@link RequestRouter} with a public constructor taking {@code (RouterContext,
 * Map<String, Object>)}, {@code (Map<String, Object>)} or nothing.
 */
public final class RequestRouters {

  private static final Map<String, RequestRouterFactory> BUILT_IN = builtIn();
  /** The built-in policies that route by the prompt, so need the request's body. */
  private static final Set<String> PROMPT_READERS = Set.of(PrefixCacheAffinityRouter.KEY);

  private RequestRouters() {}

  private static Map<String, RequestRouterFactory> builtIn() {
    Map<String, RequestRouterFactory> registry = new TreeMap<>();
    register(registry, RoundRobinRouter.KEY, RoundRobinRouter::create);
    register(registry, PowerOfTwoRouter.KEY, PowerOfTwoRouter::create);
    register(registry, ConsistentHashRouter.KEY, ConsistentHashRouter::create);
    register(registry, PrefixCacheAffinityRouter.KEY, PrefixCacheAffinityRouter::create);
    register(registry, CapacityQueueRouter.KEY, CapacityQueueRouter::create);
    return Collections.unmodifiableMap(registry);
  }

  private static void register(
      Map<String, RequestRouterFactory> registry, String key, RequestRouterFactory factory) {
    if (registry.putIfAbsent(key, factory) != null) {
      throw new IllegalStateException("request router key registered twice: " + key);
    }
  }

  /** Registered keys, sorted. */
  public static Set<String> keys() {
    return BUILT_IN.keySet();
  }

  /**
   * Whether the policy routes by the prompt ({@code prefix-cache-affinity}): its requests must
   * bring their body to the router, whatever the ingress's {@code forward-body} says. An outside
   * policy that reads the prompt needs {@code forward-body = on}.
   */
  public static boolean readsPrompt(String routerClass) {
    return PROMPT_READERS.contains(routerClass);
  }

  /** The policy's metric label: its key, or its simple class name for an outside policy. */
  public static String label(String routerClass) {
    return BUILT_IN.containsKey(routerClass) ? routerClass
        : routerClass.substring(routerClass.lastIndexOf('.') + 1);
  }

  /**
   * A new policy for {@code routerClass} (a key or a class name). Fails with a message naming the
   * known keys or the bad kwarg.
   */
  public static RequestRouter create(
      String routerClass, Map<String, Object> kwargs, RouterContext context) {
    Objects.requireNonNull(routerClass, "routerClass");
    Objects.requireNonNull(kwargs, "kwargs");
    Objects.requireNonNull(context, "context");
    RequestRouterFactory factory = BUILT_IN.get(routerClass);
    if (factory != null) {
      return factory.create(context, new Kwargs(routerClass, kwargs));
    }
    if (routerClass.contains(".")) {
      return load(routerClass, kwargs, context);
    }
    throw new IllegalArgumentException("request_router_class: '" + routerClass
        + "' (expected: one of " + String.join(", ", keys()) + ", or a fully qualified class name)");
  }

  /** Validates a configuration without keeping the policy (startup checks). */
  public static void validate(String routerClass, Map<String, Object> kwargs) {
    create(routerClass, kwargs, RouterContext.forTests(0));
  }

  private static RequestRouter load(
      String className, Map<String, Object> kwargs, RouterContext context) {
    try {
      // Not initialized before it is known to be a router: a name from a config must not run
      // the static initializer of whatever class it names.
      Class<?> type = Class.forName(className, false, RequestRouters.class.getClassLoader());
      if (!RequestRouter.class.isAssignableFrom(type)) {
        throw new IllegalArgumentException("request_router_class: '" + className
            + "' (expected: a class implementing " + RequestRouter.class.getName() + ")");
      }
      try {
        return (RequestRouter) type.getConstructor(RouterContext.class, Map.class)
            .newInstance(context, kwargs);
      } catch (NoSuchMethodException e) {
        try {
          return (RequestRouter) type.getConstructor(Map.class).newInstance(kwargs);
        } catch (NoSuchMethodException none) {
          if (!kwargs.isEmpty()) {
            throw new IllegalArgumentException("request_router_kwargs: " + kwargs.keySet()
                + " (expected: none, " + className + " takes no kwargs)");
          }
          return (RequestRouter) type.getConstructor().newInstance();
        }
      }
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("request_router_class: '" + className
          + "' not found (expected: one of " + String.join(", ", keys())
          + ", or a class on the classpath)", e);
    } catch (java.lang.reflect.InvocationTargetException e) {
      if (e.getCause() instanceof IllegalArgumentException invalid) {
        throw invalid;
      }
      throw new IllegalArgumentException(
          "request_router_class: cannot instantiate '" + className + "': " + e.getCause(), e);
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(
          "request_router_class: cannot instantiate '" + className + "': " + e, e);
    }
  }
}
