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
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one registry of built-in policies, by key; duplicates are rejected. A key that is not
 * registered but looks like a class name is loaded as an outside policy: a public class
 * implementing {@link RequestRouter} with a public constructor taking {@code (RouterContext,
 * Map<String, Object>)}, {@code (Map<String, Object>)} or nothing.
 */
public final class RequestRouters {

  private static final Logger log = LoggerFactory.getLogger(RequestRouters.class);
  private static final Map<String, BuiltIn> BUILT_IN = builtIn();
  /** Outside policies' class names, and whether each {@link ReadsPrompt} (asked per request). */
  private static final Map<String, Boolean> OUTSIDE_READS_PROMPT = new ConcurrentHashMap<>();

  private record BuiltIn(Class<? extends RequestRouter> type, RequestRouterFactory factory) {}

  private RequestRouters() {}

  private static Map<String, BuiltIn> builtIn() {
    Map<String, BuiltIn> registry = new TreeMap<>();
    register(registry, RoundRobinRouter.KEY, RoundRobinRouter.class, RoundRobinRouter::create);
    register(registry, PowerOfTwoRouter.KEY, PowerOfTwoRouter.class, PowerOfTwoRouter::create);
    register(registry, ConsistentHashRouter.KEY, ConsistentHashRouter.class,
        ConsistentHashRouter::create);
    register(registry, PrefixCacheAffinityRouter.KEY, PrefixCacheAffinityRouter.class,
        PrefixCacheAffinityRouter::create);
    register(registry, CapacityQueueRouter.KEY, CapacityQueueRouter.class,
        CapacityQueueRouter::create);
    return Collections.unmodifiableMap(registry);
  }

  private static void register(Map<String, BuiltIn> registry, String key,
      Class<? extends RequestRouter> type, RequestRouterFactory factory) {
    if (registry.putIfAbsent(key, new BuiltIn(type, factory)) != null) {
      throw new IllegalStateException("request router key registered twice: " + key);
    }
  }

  /** Registered keys, sorted. */
  public static Set<String> keys() {
    return BUILT_IN.keySet();
  }

  /**
   * Whether the policy routes by the prompt (it implements {@link ReadsPrompt}, as
   * {@code prefix-cache-affinity} does): its requests must bring their body to the router,
   * whatever the ingress's {@code forward-body} says. An outside policy not on this node's
   * classpath counts as not reading it (logged once).
   */
  public static boolean readsPrompt(String routerClass) {
    BuiltIn builtIn = BUILT_IN.get(routerClass);
    if (builtIn != null) {
      return ReadsPrompt.class.isAssignableFrom(builtIn.type());
    }
    return routerClass.contains(".")
        && OUTSIDE_READS_PROMPT.computeIfAbsent(routerClass, RequestRouters::outsideReadsPrompt);
  }

  private static boolean outsideReadsPrompt(String className) {
    try {
      Class<?> type = Class.forName(className, false, RequestRouters.class.getClassLoader());
      return RequestRouter.class.isAssignableFrom(type)
          && ReadsPrompt.class.isAssignableFrom(type);
    } catch (ClassNotFoundException | LinkageError e) {
      log.warn("request_router_class '{}' is not on this node's classpath: its requests reach the "
          + "router without their body unless forward-body = on (put the policy's jar on every "
          + "node's classpath: SLUICE_CLASSPATH)", className);
      return false;
    }
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
    BuiltIn builtIn = BUILT_IN.get(routerClass);
    if (builtIn != null) {
      return builtIn.factory().create(context, new Kwargs(routerClass, kwargs));
    }
    if (routerClass.contains(".")) {
      return load(routerClass, kwargs, context);
    }
    throw new IllegalArgumentException("request_router_class: '" + routerClass
        + "' (expected: one of " + String.join(", ", keys())
        + ", or a fully qualified class name)");
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
          + ", or a class on the classpath: SLUICE_CLASSPATH)", e);
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
