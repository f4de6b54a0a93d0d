package dev.sluice.deploy.haproxy;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.BoundedBody;
import dev.sluice.core.http.RequestIds;
import dev.sluice.core.openai.ModelList;
import dev.sluice.ingress.edge.ApiKeys;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * HAProxy as a second data plane in front of the same replicas and router (issue 13): renders an
 * {@code haproxy.cfg} from the live replicas and the Lua action ({@code sluice_route.lua}) that
 * asks the router's {@code POST /internal/route} per request and pins the request to the chosen
 * replica's server (a server HAProxy's checks mark down fails with {@code replica_unreachable},
 * never falls back to another). A failure anywhere on that path answers 503 {@code text/plain}
 * "Ingress request router failed: reason" with {@code X-Serve-Reason} before any backend is used
 * (fail closed). Only completions reach a replica (an external engine's own port, where it has
 * one); HAProxy answers everything else as the ingress does (models, 404, 405). Issue 13 had
 * other methods load-balanced: they would reach a replica's internal routes with the cluster
 * token.
 */
public final class HaproxyConfig {

  /** The one backend of the replicas (its name is also the Lua action's SLUICE_BACKEND). */
  static final String BACKEND = "sluice_replicas";
  /** The frontend's name (what a node's stop disables first). */
  static final String FRONTEND = "sluice";
  /** The server of requests sent to the router's address rather than a known server. */
  public static final String DYNAMIC_SERVER = "sluice_replica_by_address";
  /** HAProxy's {@code /-/healthz} answer (503) while no replica's server is up. */
  static final String NO_SERVER_UP = "no replica is up: no server passes its health check";
  /** The frontend of HAProxy's own Prometheus exporter. */
  static final String METRICS_FRONTEND = "sluice_metrics";
  private static final Pattern OUTSIDE = Pattern.compile("[^A-Za-z0-9._-]");
  private static final String APP_FOUND = "{ var(txn.sluice_app) -m found }";
  /** Not a request the Lua action sent to the node's own ingress. */
  private static final String NOT_VIA_INGRESS = "!{ var(txn.sluice_via_ingress) -m found }";
  /** A completion route of the request's application (see {@code completions}). */
  private static final String COMPLETION = "{ var(txn.sluice_completion) -m found }";
  /** The request's path as the client sent it (before a route prefix comes off). */
  private static final String PATH = "%[var(txn.sluice_path),json(utf8s)]";
  /** A model id HAProxy's config can hold as it is, in a path and in a quoted string. */
  private static final Pattern PLAIN_ID = Pattern.compile("[A-Za-z0-9._:@+/-]+");
  /** Digests per {@code acl} line: HAProxy takes at most 64 words and 2 KiB a line. */
  private static final int DIGESTS_PER_LINE = 20;
  /** The ingress's default {@code max-request-bytes}. */
  static final long DEFAULT_MAX_REQUEST_BYTES = 8L << 20;
  /**
   * A replica as HAProxy sees it: its id, where its completions go ({@code port}: its endpoint's,
   * or an external engine's, as the ingress sends them) and the port of its endpoint, whose
   * {@code /-/healthz} HAProxy checks.
   */
  public record Replica(String id, String host, int port, int healthPort) {

    public Replica {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(host, "host");
    }

    /** A replica whose endpoint takes its completions. */
    public Replica(String id, String host, int port) {
      this(id, host, port, port);
    }
  }

  // Room in HAProxy's buffer beyond a forwarded body (the request head, tune.maxrewrite).
  private static final int BUFFER_HEADROOM = 16 * 1024;

  private HaproxyConfig() {}

  /**
   * A frontend serving HAProxy's own metrics (its Prometheus exporter) on {@code host:port}:
   * {@code GET /metrics}, anything else 404. Appended to {@link #render}'s config.
   */
  public static String metricsFrontend(String host, int port) {
    return String.join("\n", "",
        "frontend " + METRICS_FRONTEND,
        "  bind " + host + ":" + port,
        "  http-request use-service prometheus-exporter if { path /metrics }",
        "  http-request return status 404 content-type text/plain string \"Not found: HAProxy's "
            + "metrics are at /metrics\"",
        "");
  }

  /** A replica id as an HAProxy server name: '#' -> '-', '/' -> '.', others -> '_'. */
  public static String serverName(String replicaId) {
    return OUTSIDE.matcher(replicaId.replace('#', '-').replace('/', '.')).replaceAll("_");
  }

  /** The Lua action's source. */
  public static String lua() {
    try (InputStream in = HaproxyConfig.class.getResourceAsStream("sluice_route.lua")) {
      if (in == null) {
        throw new IllegalStateException("sluice_route.lua missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Writes the Lua action to {@code lua} and HAProxy's error pages beside it (their messages
   * name the {@code timeouts}), each file only when its content changed: what {@link #render}
   * loads.
   */
  public static void writeFiles(Path lua, HaproxyTimeouts timeouts) throws IOException {
    HaproxyDataPlane.writeIfChanged(lua, lua());
    HaproxyErrorPages.write(directory(lua), timeouts);
  }

  /** {@link #writeFiles(Path, HaproxyTimeouts)} with the ingress's default timeouts. */
  public static void writeFiles(Path lua) throws IOException {
    writeFiles(lua, HaproxyTimeouts.DEFAULTS);
  }

  private static Path directory(Path lua) {
    return lua.toAbsolutePath().getParent();
  }

  /**
   * The {@code haproxy.cfg} for {@code replicas}, loading the Lua action from {@code lua}. The
   * same settings and replicas (in any order) give the same text, so unchanged sets never reload.
   */
  public static String render(RenderSettings settings, List<Replica> given, Path lua) {
    List<Replica> replicas = given.stream()
        .sorted(java.util.Comparator.comparing(Replica::id)).toList();
    List<String> out = new ArrayList<>();
    out.add("# Generated by Sluice: HAProxy in front of Sluice's replicas, every routed request");
    out.add("# pinned to the replica Sluice's LLMRouter chose. Do not edit: a node running it");
    out.add("# (sluice.haproxy) rewrites it when the replica sets change.");
    out.add("global");
    out.add("  setenv SLUICE_ROUTER_HOST " + quoted(settings.routerHost()));
    out.add("  setenv SLUICE_ROUTER_PORT " + settings.routerPort());
    if (!settings.moreRouters().isEmpty()) {
      // Asked when the routers before refuse the connection (a control node gone).
      out.add("  setenv SLUICE_MORE_ROUTERS " + quoted(String.join(",",
          settings.moreRouters())));
    }
    out.add("  setenv SLUICE_ROUTE_TIMEOUT_S " + settings.routeTimeoutSeconds());
    out.add("  setenv SLUICE_SESSION_HEADER " + quoted(settings.sessionHeader().toLowerCase(
        java.util.Locale.ROOT)));
    out.add("  setenv SLUICE_BACKEND " + BACKEND);
    out.add("  setenv SLUICE_FORWARD_BODY_LIMIT " + settings.forwardBodyLimit());
    if (settings.forwardBodyLimit() > 0) {
      out.add("  tune.bufsize " + (settings.forwardBodyLimit() + BUFFER_HEADROOM));
    }
    out.add("  hard-stop-after " + settings.drainSeconds() + "s");
    if (!settings.routerToken().isEmpty()) {
      out.add("  setenv SLUICE_ROUTER_TOKEN " + quoted(settings.routerToken()));
    }
    if (settings.ingressPort() != 0) {
      out.add("  setenv SLUICE_INGRESS_HOST " + quoted(settings.ingressHost()));
      out.add("  setenv SLUICE_INGRESS_PORT " + settings.ingressPort());
    }
    out.add("  lua-load " + quoted(lua.toAbsolutePath().toString()));
    out.add("");
    out.add("defaults");
    out.add("  mode http");
    out.add("  timeout connect 5s");
    settings.timeouts().render(out);
    // On a reload the old worker keeps a client's idle keep-alive connection until its next
    // request is answered (with Connection: close) instead of closing it under the client, which
    // may be sending a request on it at that moment (a POST is not retried by clients).
    out.add("  option idle-close-on-response");
    // Tokens are small writes: with Nagle's algorithm on (HAProxy's default) each waits for the
    // client's delayed ACK, 40 to 200 ms. Ray defaults this on too (RAY_SERVE_HAPROXY_TCP_NODELAY).
    out.add("  option http-no-delay");
    // A pinned request cannot go to another server, and trying the same one again after a
    // refusal (HAProxy's default: 3 times, a second apart) only holds the client 3 s longer
    // before the same 503: a replica that refuses is gone or not yet there.
    out.add("  retries 0");
    HaproxyErrorPages.lines(out, directory(lua), settings.timeouts());
    out.add("");
    out.add("frontend " + FRONTEND);
    out.add("  bind " + settings.bindHost() + ":" + settings.bindPort());
    // Healthy while a replica's server is up, as Ray's HAProxy has it: a load balancer in front
    // of several HAProxies sends nothing to one that could only fail every request.
    out.add("  http-request return status 200 content-type text/plain string ok "
        + "if { path /-/healthz } { nbsrv(" + BACKEND + ") ge 1 }");
    out.add("  http-request return status 503 content-type text/plain string \"" + NO_SERVER_UP
        + "\" if { path /-/healthz }");
    // Before the request id is read: a value the ingress refuses is refused here too, not
    // replaced by a fresh id.
    HaproxyRefusals.lines(out);
    requestIds(out);
    out.add("  http-request set-var(txn.sluice_path) path");
    apiKeys(out, settings.apiKeysRequired(), settings.apiKeyDigests());
    // A body over the limit is the replica's to refuse: it reads on first (BoundedBody), so
    // that a client still sending gets the 413. HAProxy answering early, then closing, reset
    // such a client's connection before it read the answer. A Content-Length beyond
    // BoundedBody.serverCap gets the same 413 here, at once, without buffering any of it.
    long cap = BoundedBody.serverCap(settings.maxRequestBytes());
    out.add("  http-request return status 413 content-type application/json lf-string '"
        + new ApiError(ApiError.Code.PAYLOAD_TOO_LARGE, "The request body is "
            + "%[req.hdr(content-length)] bytes; the limit is " + settings.maxRequestBytes(),
            null).toJson()
        + "' if { req.hdr_val(content-length) gt " + cap + " }");
    // Wait for the body (up to the buffer; 408 after the request timeout) before the router is
    // asked and a replica's slot taken: a client sending slowly holds no slot meanwhile, and
    // the Lua action can read the body for the router when body forwarding is on.
    out.add("  http-request wait-for-body time "
        + HaproxyTimeouts.haproxy(settings.timeouts().request()));
    applications(out, settings);
    completions(out, settings);
    HaproxyRefusals.unsized(out, settings.ingressPort() != 0, COMPLETION);
    // A body over the limit (a Content-Length above it; one without goes to the ingress or is
    // refused, above), or in a content coding, is for a replica's endpoint to refuse as the
    // ingress does (BoundedBody, reading on; ContentCoding): the Lua action sends it there
    // rather than to an external engine's own port, which would take it whatever its size, and
    // try to read gzip as JSON.
    out.add("  http-request set-var(txn.sluice_via_endpoint) bool(true) if "
        + "{ req.hdr_val(content-length) gt "
        + settings.maxRequestBytes() + " } || { req.hdr_cnt(content-encoding) gt 1 } || "
        + "{ req.hdr(content-encoding) -m found } !{ req.hdr(content-encoding) -i identity }");
    // With no application known yet every completion asks the router, which says why it cannot
    // route.
    out.add("  http-request lua.sluice_route if METH_POST " + COMPLETION);
    // The request's own mistakes, as the ingress answers them (Answers.notRouted): a model no
    // deployment of the application serves, or none named where several are.
    String detail = "%[var(txn.sluice_detail),json(utf8s)]";
    out.add("  http-request return status 404 content-type application/json lf-string '"
        + new ApiError(ApiError.Code.MODEL_NOT_FOUND, detail, "model").toJson()
        + "' hdr X-Serve-Reason model_not_found if { var(txn.sluice_reason) -m str "
        + "model_not_found }");
    out.add("  http-request return status 400 content-type application/json lf-string '"
        + ApiError.invalid("model", detail).toJson()
        + "' hdr X-Serve-Reason model_required if { var(txn.sluice_reason) -m str "
        + "model_required }");
    // Fail closed: the reason (and the router's detail, when it gave one) before any backend.
    String failed = "  http-request return status 503 content-type text/plain lf-string "
        + "\"Ingress request router failed: %[var(txn.sluice_reason)]\" "
        + "hdr X-Serve-Reason \"%[var(txn.sluice_reason)]\" ";
    out.add(failed + "hdr x-sluice-detail \"%[var(txn.sluice_detail)]\" "
        + "if { var(txn.sluice_reason) -m found } { var(txn.sluice_detail) -m found }");
    out.add(failed + "if { var(txn.sluice_reason) -m found }");
    withinApplications(out, settings);
    notServed(out);
    out.add("  default_backend " + BACKEND);
    out.add("");
    out.add("backend " + BACKEND);
    out.add("  balance leastconn");
    out.add("  option httpchk");
    out.add("  http-check send meth GET uri /-/healthz ver HTTP/1.1 hdr host sluice-haproxy");
    out.add("  http-check expect status 200");
    // A busy replica answers its health check late, not never: a check may take 10 s before it
    // counts as failed (without this, `inter`, 2 s, is the whole check timeout, and a replica
    // saturated by a burst of new streams flapped DOWN, failing requests closed). A replica
    // that is gone refuses the connection and is marked down after `fall` (3) checks.
    out.add("  timeout check 10s");
    // A pinned request goes to its server even if that server was just marked down (it then
    // fails there): never to another one.
    out.add("  force-persist if { var(txn.sluice_server) -m found }");
    // An old worker's request for a replica added after its config (the Lua action): to the
    // address the router gave. The server takes no other request (weight 0, no checks).
    out.add("  http-request set-dst var(txn.sluice_dst_host) if { var(txn.sluice_dst_host) -m "
        + "found }");
    out.add("  http-request set-dst-port var(txn.sluice_dst_port) if { var(txn.sluice_dst_host) "
        + "-m found }");
    // Replicas get the cluster token as the ingress sends it, never the client's own credentials
    // (the ingress gets the client's: it checks the API key again).
    out.add((settings.routerToken().isEmpty() ? "  http-request del-header authorization"
        : "  http-request set-header authorization \"Bearer %[env(SLUICE_ROUTER_TOKEN)]\"")
        + " if " + NOT_VIA_INGRESS);
    out.add("  http-response set-header x-sluice-replica %[var(txn.sluice_replica)] "
        + "if { var(txn.sluice_replica) -m found }");
    // An external engine answers without it (the replica's endpoint adds it): as the splice does.
    out.add("  http-response set-header x-sluice-served-by %[var(txn.sluice_replica)] "
        + "if { var(txn.sluice_replica) -m found } !{ res.hdr(x-sluice-served-by) -m found }");
    // After every http-request rule (HAProxy runs those first anyway, and warns on each reload
    // of a config that lists one after a use-server rule).
    out.add("  use-server " + DYNAMIC_SERVER + " if { var(txn.sluice_dst_host) -m found }");
    for (Replica replica : replicas) {
      String name = serverName(replica.id());
      out.add("  use-server " + name + " if { var(txn.sluice_server) -m str " + name + " }");
    }
    out.add("  server " + DYNAMIC_SERVER + " 0.0.0.0:0 weight 0");
    for (Replica replica : replicas) {
      // A failed connection marks the server down at once (the health checks bring it back):
      // the Lua action then has the router pick again without it, where waiting for 3 failed
      // checks (6 s) sent every request the router still gave it to a dead replica.
      // An external engine gets the completions (as from the ingress: no hop through the
      // replica's endpoint), and the replica's endpoint the health checks.
      out.add("  server " + serverName(replica.id()) + " " + replica.host() + ":"
          + replica.port() + " check" + (replica.healthPort() == replica.port() ? ""
              : " port " + replica.healthPort())
          + " inter 2s observe layer4 error-limit 1 on-error mark-down");
    }
    return String.join("\n", out) + "\n";
  }

  /**
   * Each request's application, as the ingress finds it (Ray Serve's rule): the longest route
   * prefix that is the whole path or a leading run of its segments.
   */
  private static void applications(List<String> out, RenderSettings settings) {
    Map<String, String> routes = settings.routes();
    List<String> longestFirst = new ArrayList<>(routes.keySet());
    longestFirst.sort(java.util.Comparator.comparingInt(String::length).reversed());
    for (String prefix : longestFirst) {
      String set = "  http-request set-var(txn.sluice_app) str(" + routes.get(prefix) + ") if !"
          + APP_FOUND;
      out.add(prefix.equals("/") ? set
          : set + " { path " + prefix + " } || !" + APP_FOUND + " { path_beg " + prefix + "/ }");
    }
    // Where the router needs the body's model to pick a deployment.
    settings.models().forEach((app, ids) -> {
      if (ids.size() > 1 && routes.containsValue(app)) {
        out.add("  http-request set-var(txn.sluice_several_models) bool(true) if "
            + "{ var(txn.sluice_app) -m str " + app + " }");
      }
    });
    // Where the router routes by the prompt and body forwarding is off: it still gets the part of
    // the body HAProxy buffers (a prompt-aware policy without it routes as if there were none).
    if (settings.forwardBodyLimit() == 0) {
      for (String app : settings.promptApps()) {
        if (routes.containsValue(app)) {
          out.add("  http-request set-var(txn.sluice_prompt_routed) bool(true) if "
              + "{ var(txn.sluice_app) -m str " + app + " }");
        }
      }
    }
  }

  /**
   * The completion routes ({@code POST /v1/chat/completions} and {@code /v1/completions} under
   * the application's prefix) are the only requests a replica gets, as from the ingress: they
   * carry the cluster token, and a replica's (or an external engine's) other routes are not for
   * clients. Another method on them is 405, naming {@code POST}.
   */
  private static void completions(List<String> out, RenderSettings settings) {
    if (settings.routes().isEmpty()) {
      out.add("  http-request set-var(txn.sluice_completion) bool(true) if "
          + "{ path /v1/chat/completions /v1/completions }");
    }
    settings.routes().forEach((prefix, app) -> {
      String root = prefix.equals("/") ? "" : prefix;
      out.add("  http-request set-var(txn.sluice_completion) bool(true) if "
          + "{ var(txn.sluice_app) -m str " + app + " } { path " + root + "/v1/chat/completions "
          + root + "/v1/completions }");
    });
    out.add(notAllowed("POST") + " if " + COMPLETION + " !METH_POST");
  }

  /**
   * What is neither a completion nor answered above gets the ingress's answers: 405 for another
   * method than {@code GET} on the models' paths, else 404. (A {@code GET} of the models whose
   * ids the config could not hold goes on to a replica.)
   */
  private static void notServed(List<String> out) {
    out.add(notAllowed("\"GET, HEAD\"") + " if !METH_GET { path /v1/models } || !METH_GET "
        + "{ path_beg /v1/models/ }");
    out.add("  http-request return status 404 content-type application/json lf-string '"
        + new ApiError(ApiError.Code.NOT_FOUND, "Not found: " + PATH, null).toJson()
        + "' unless " + COMPLETION + " || METH_GET { path /v1/models } || METH_GET "
        + "{ path_beg /v1/models/ }");
  }

  private static String notAllowed(String allow) {
    return "  http-request return status 405 content-type application/json lf-string '"
        + new ApiError(ApiError.Code.METHOD_NOT_ALLOWED, "Method %[method] not allowed on "
            + PATH, null).toJson() + "' hdr Allow " + allow;
  }

  /**
   * A replica serves its application at the root: the prefix comes off the path (which a
   * request under no application's prefix does not reach: 404, as from the ingress).
   */
  private static void withinApplications(List<String> out, RenderSettings settings) {
    Map<String, String> routes = settings.routes();
    if (routes.isEmpty()) {
      return;
    }
    out.add("  http-request return status 404 content-type application/json string '"
        + new ApiError(ApiError.Code.NOT_FOUND, "Not found: the path is under no application "
            + "(route prefixes: " + String.join(", ", routes.keySet()) + ")", null)
            .toJson() + "' if !" + APP_FOUND);
    routes.forEach((prefix, app) -> {
      if (!prefix.equals("/")) {
        String regex = "^" + prefix.replace(".", "[.]");
        // The ingress, where a request goes whose model HAProxy could not read, takes the path
        // as the client sent it.
        String ofApp = " if { var(txn.sluice_app) -m str " + app + " } " + NOT_VIA_INGRESS;
        out.add("  http-request replace-path " + regex + "$ /" + ofApp);
        out.add("  http-request replace-path " + regex + "(/.*)$ \\1" + ofApp);
      }
    });
    models(out, routes, settings.models());
  }

  /**
   * {@code GET /v1/models} (and {@code /v1/models/{id}}) of each application, answered as the
   * ingress answers them: a replica knows only its own model. A model id with characters that
   * do not fit in the config as they are is left to the replicas.
   */
  private static void models(List<String> out, Map<String, String> routes,
      Map<String, List<String>> models) {
    models.forEach((app, ids) -> {
      if (!routes.containsValue(app) || !ids.stream().allMatch(id -> PLAIN_ID.matcher(id)
          .matches())) {
        return;
      }
      String ofApp = " if METH_GET { var(txn.sluice_app) -m str " + app + " } ";
      out.add("  http-request return status 200 content-type application/json string '"
          + ModelList.json(ids) + "'" + ofApp + "{ path /v1/models }");
      for (String id : ids) {
        out.add("  http-request return status 200 content-type application/json string '"
            + ModelList.model(id) + "'" + ofApp + "{ path /v1/models/" + id + " }");
      }
      out.add("  http-request return status 404 content-type application/json string '"
          + new ApiError(ApiError.Code.MODEL_NOT_FOUND, "The model does not exist", "model")
              .toJson() + "'" + ofApp + "{ path_beg /v1/models/ }");
    });
  }

  /**
   * The ingress's request id rule ({@link RequestIds}): the client's one
   * {@code x-request-id} if it is 1 to 128 characters of {@code [A-Za-z0-9._:-]}, else a new
   * UUID; the replica gets it (it names the completion after it), and so does the router, and
   * every answer carries it back, HAProxy's own included.
   */
  private static void requestIds(List<String> out) {
    out.add("  http-request set-header x-request-id %[uuid] unless "
        + "{ req.hdr_cnt(x-request-id) eq 1 } { req.fhdr(x-request-id) -m reg "
        + "^[A-Za-z0-9._:-]{1," + RequestIds.MAX_LENGTH + "}$ }");
    out.add("  http-request set-var(txn.sluice_request_id) req.fhdr(x-request-id)");
    out.add("  http-after-response set-header x-request-id %[var(txn.sluice_request_id)] "
        + "if { var(txn.sluice_request_id) -m found }");
  }

  /**
   * The ingress's API-key check: {@code Authorization: Bearer <key>} (the first such header,
   * scheme case-insensitive) whose SHA-256 is one of the digests, else 401 in the OpenAI shape,
   * the same two answers as the ingress's. Only digests are written; health probes pass. Keys
   * required but none known (a keys file emptied): every request is refused, never let in.
   */
  private static void apiKeys(List<String> out, boolean required, List<String> digests) {
    if (!required) {
      return;
    }
    out.add("  acl sluice_bearer req.hdr(authorization,1) -m reg -i \"^bearer +[^ ]\"");
    for (int i = 0; i < digests.size(); i += DIGESTS_PER_LINE) {
      out.add("  acl sluice_api_key req.hdr(authorization,1),regsub(\"^bearer +\",,i),"
          + "sha2(256),hex,lower -m str "
          + String.join(" ", digests.subList(i, Math.min(digests.size(), i + DIGESTS_PER_LINE))));
    }
    String refuse = "  http-request return status 401 content-type application/json string '%s' "
        + "hdr www-authenticate Bearer";
    out.add(String.format(refuse, ApiKeys.refusal(true).toJson())
        + " if !{ req.hdr(authorization) -m found }");
    out.add(String.format(refuse, ApiKeys.refusal(false).toJson())
        + (digests.isEmpty() ? "" : " unless sluice_bearer sluice_api_key"));
  }

  static String quoted(String value) {
    if (value.indexOf('"') >= 0 || value.indexOf('\\') >= 0 || value.indexOf('\n') >= 0) {
      throw new IllegalArgumentException("not allowed in haproxy.cfg: " + value);
    }
    return "\"" + value + "\"";
  }
}
