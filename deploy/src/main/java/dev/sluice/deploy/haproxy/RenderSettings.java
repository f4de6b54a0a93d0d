package dev.sluice.deploy.haproxy;

import dev.sluice.core.config.ApplicationsConfigParser;
import dev.sluice.core.http.BoundedBody;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What {@link HaproxyConfig#render} takes, for the frontend and the Lua action: where HAProxy
 * listens, where the router is, the route timeout, the cluster token for the router and the
 * replicas (empty: none), the session header, each application by its route prefix (POSTs under
 * it consult the router, among that application's deployments, and its replicas see the path
 * without it), how many bytes of a body go to the router (0: body forwarding off), how long a
 * stopping HAProxy lets streams in flight finish, whether clients must send an API key, and the
 * keys they may send, as the ingress's hex SHA-256 digests (none while required: every request
 * is refused), and the largest request body the ingress takes ({@code
 * sluice.ingress.max-request-bytes}), each application's models, the node's own ingress (an IP
 * address and port; port 0: none), HAProxy's client and server timeouts (the ingress's), and
 * the routers to ask when the first refuses the connection, and the applications whose
 * routing reads the prompt (prefix-cache-affinity: with body forwarding off, the router still
 * gets the part of the body HAProxy buffers).
 */
public record RenderSettings(String bindHost, int bindPort, String routerHost, int routerPort,
    double routeTimeoutSeconds, String routerToken, String sessionHeader,
    Map<String, String> routes, int forwardBodyLimit, long drainSeconds,
    boolean apiKeysRequired, List<String> apiKeyDigests, long maxRequestBytes,
    Map<String, List<String>> models, String ingressHost, int ingressPort,
    HaproxyTimeouts timeouts, List<String> moreRouters, Set<String> promptApps) {

  private static final Pattern HOST_PORT = Pattern.compile("[A-Za-z0-9.:-]+:[0-9]{1,5}");
  private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}");
  /** An IPv4 or IPv6 address, not a name. */
  private static final Pattern IP = Pattern.compile("[0-9.]+|[0-9a-fA-F:]*:[0-9a-fA-F:.]*");

  public RenderSettings {
    Objects.requireNonNull(timeouts, "timeouts");
    promptApps = Collections.unmodifiableSet(new java.util.TreeSet<>(promptApps));
    if (!promptApps.stream().allMatch(ApplicationsConfigParser::isAppName)) {
      throw new IllegalArgumentException("not an application name: " + promptApps);
    }
    moreRouters = List.copyOf(moreRouters);
    if (!moreRouters.stream().allMatch(router -> HOST_PORT.matcher(router).matches())) {
      throw new IllegalArgumentException("a router is not host:port: " + moreRouters);
    }
    Map<String, List<String>> sorted = new TreeMap<>();
    models.forEach((app, ids) -> sorted.put(app, ids.stream().sorted().distinct().toList()));
    models = Collections.unmodifiableMap(sorted);
    routes = Collections.unmodifiableMap(new TreeMap<>(routes));
    routes.forEach((prefix, app) -> {
      if (!ApplicationsConfigParser.isRoutePrefix(prefix)
          || !ApplicationsConfigParser.isAppName(app)) {
        throw new IllegalArgumentException("route prefix " + prefix + " of application " + app
            + ": not one the config parser takes");
      }
    });
    apiKeyDigests = apiKeyDigests.stream().sorted().toList();
    if (!apiKeyDigests.stream().allMatch(digest -> DIGEST.matcher(digest).matches())) {
      throw new IllegalArgumentException("an API key digest is not 64 lowercase hex digits");
    }
    if (forwardBodyLimit < 0) {
      throw new IllegalArgumentException("forwardBodyLimit < 0: " + forwardBodyLimit);
    }
    if (maxRequestBytes <= 0) {
      throw new IllegalArgumentException("maxRequestBytes <= 0: " + maxRequestBytes);
    }
    if (ingressPort != 0 && !IP.matcher(ingressHost).matches()) {
      throw new IllegalArgumentException("the ingress's address must be an IP address (HAProxy's"
          + " set-dst takes no name): " + ingressHost);
    }
  }

  /** Body forwarding off, 30 s to drain, no API key, bodies up to 8 MiB. */
  public RenderSettings(String bindHost, int bindPort, String routerHost, int routerPort,
      double routeTimeoutSeconds, String routerToken, String sessionHeader,
      Map<String, String> routes) {
    this(bindHost, bindPort, routerHost, routerPort, routeTimeoutSeconds, routerToken,
        sessionHeader, routes, 0, 30, false, List.of(), HaproxyConfig.DEFAULT_MAX_REQUEST_BYTES,
        Map.of(), "", 0, HaproxyTimeouts.DEFAULTS, List.of());
  }

  /** No application whose routing reads the prompt. */
  public RenderSettings(String bindHost, int bindPort, String routerHost, int routerPort,
      double routeTimeoutSeconds, String routerToken, String sessionHeader,
      Map<String, String> routes, int forwardBodyLimit, long drainSeconds,
      boolean apiKeysRequired, List<String> apiKeyDigests, long maxRequestBytes,
      Map<String, List<String>> models, String ingressHost, int ingressPort,
      HaproxyTimeouts timeouts, List<String> moreRouters) {
    this(bindHost, bindPort, routerHost, routerPort, routeTimeoutSeconds, routerToken,
        sessionHeader, routes, forwardBodyLimit, drainSeconds, apiKeysRequired, apiKeyDigests,
        maxRequestBytes, models, ingressHost, ingressPort, timeouts, moreRouters, Set.of());
  }

  /**
   * The applications whose routing reads the prompt: with body forwarding off, the router still
   * gets the part of their bodies HAProxy buffers (cut bodies marked X-Body-Truncated).
   */
  public RenderSettings withPromptApps(Set<String> apps) {
    return new RenderSettings(bindHost, bindPort, routerHost, routerPort, routeTimeoutSeconds,
        routerToken, sessionHeader, routes, forwardBodyLimit, drainSeconds, apiKeysRequired,
        apiKeyDigests, maxRequestBytes, models, ingressHost, ingressPort, timeouts,
        moreRouters, apps);
  }

  /** HAProxy's client and server timeouts (the ingress's defaults unless set). */
  public RenderSettings withTimeouts(HaproxyTimeouts limits) {
    return new RenderSettings(bindHost, bindPort, routerHost, routerPort, routeTimeoutSeconds,
        routerToken, sessionHeader, routes, forwardBodyLimit, drainSeconds, apiKeysRequired,
        apiKeyDigests, maxRequestBytes, models, ingressHost, ingressPort, limits,
        moreRouters, promptApps);
  }

  public RenderSettings withForwardBodyLimit(int limit) {
    return new RenderSettings(bindHost, bindPort, routerHost, routerPort, routeTimeoutSeconds,
        routerToken, sessionHeader, routes, limit, drainSeconds, apiKeysRequired,
        apiKeyDigests, maxRequestBytes, models, ingressHost, ingressPort, timeouts,
        moreRouters, promptApps);
  }

  /** Each application by its route prefix. */
  public RenderSettings withRoutes(Map<String, String> byPrefix) {
    return new RenderSettings(bindHost, bindPort, routerHost, routerPort, routeTimeoutSeconds,
        routerToken, sessionHeader, byPrefix, forwardBodyLimit, drainSeconds, apiKeysRequired,
        apiKeyDigests, maxRequestBytes, models, ingressHost, ingressPort, timeouts,
        moreRouters, promptApps);
  }

  /** Clients must send one of these keys ({@code required}), or need none. */
  public RenderSettings withApiKeys(boolean required, List<String> digests) {
    return new RenderSettings(bindHost, bindPort, routerHost, routerPort, routeTimeoutSeconds,
        routerToken, sessionHeader, routes, forwardBodyLimit, drainSeconds, required,
        digests, maxRequestBytes, models, ingressHost, ingressPort, timeouts,
        moreRouters, promptApps);
  }

  /**
   * The ingress's body limit: a Content-Length beyond what a replica reads to its end for its
   * 413 ({@link BoundedBody#serverCap}) gets that 413 from HAProxy.
   */
  public RenderSettings withMaxRequestBytes(long bytes) {
    return new RenderSettings(bindHost, bindPort, routerHost, routerPort, routeTimeoutSeconds,
        routerToken, sessionHeader, routes, forwardBodyLimit, drainSeconds,
        apiKeysRequired, apiKeyDigests, bytes, models, ingressHost, ingressPort, timeouts,
        moreRouters, promptApps);
  }

  /**
   * The node's own ingress ({@code port} 0: none), where a completion goes whose model the
   * Lua action could not read, for an application with several deployments: the ingress reads
   * the whole body (HAProxy buffers 16 KiB of it), and answers a missing model itself.
   */
  public RenderSettings withIngress(java.net.InetSocketAddress address) {
    if (address.isUnresolved()) {
      throw new IllegalArgumentException("the ingress's host does not resolve: "
          + address.getHostString());
    }
    // set-dst takes an address, not a name; a wildcard bind is reached on loopback.
    java.net.InetAddress ip = address.getAddress();
    return withIngress(ip.isAnyLocalAddress() ? "127.0.0.1" : ip.getHostAddress(),
        address.getPort());
  }

  /** {@link #withIngress(java.net.InetSocketAddress)} at an IP address. */
  public RenderSettings withIngress(String host, int port) {
    return new RenderSettings(bindHost, bindPort, routerHost, routerPort, routeTimeoutSeconds,
        routerToken, sessionHeader, routes, forwardBodyLimit, drainSeconds, apiKeysRequired,
        apiKeyDigests, maxRequestBytes, models, host, port, timeouts,
        moreRouters, promptApps);
  }

  /**
   * Each application's models (one per deployment): HAProxy answers its {@code /v1/models}
   * itself, as the ingress does, and for an application with several the Lua action reads
   * the body's {@code model} for the router.
   */
  public RenderSettings withModels(Map<String, List<String>> byApp) {
    return new RenderSettings(bindHost, bindPort, routerHost, routerPort, routeTimeoutSeconds,
        routerToken, sessionHeader, routes, forwardBodyLimit, drainSeconds, apiKeysRequired,
        apiKeyDigests, maxRequestBytes, byApp, ingressHost, ingressPort, timeouts,
        moreRouters, promptApps);
  }

  /**
   * Routers to ask, in this order, when the one at {@code routerHost:routerPort} and those before
   * refuse the connection ({@code host:port} each).
   */
  public RenderSettings withMoreRouters(List<String> routers) {
    return new RenderSettings(bindHost, bindPort, routerHost, routerPort, routeTimeoutSeconds,
        routerToken, sessionHeader, routes, forwardBodyLimit, drainSeconds, apiKeysRequired,
        apiKeyDigests, maxRequestBytes, models, ingressHost, ingressPort, timeouts, routers,
        promptApps);
  }
}
