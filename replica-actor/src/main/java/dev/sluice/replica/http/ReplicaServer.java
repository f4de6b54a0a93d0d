package dev.sluice.replica.http;

import dev.sluice.core.http.BoundedBody;
import dev.sluice.core.http.OpenAiParsingErrors;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * Binds a replica's HTTP endpoint on the first free port of a range (or an ephemeral port), counting
 * accepted connections.
 *
 * <p>The endpoint is Pekko HTTP's server with its strictest parsing settings (pinned in the
 * node's {@code application.conf}). What those settings cannot refuse, found in Pekko HTTP 1.3.0
 * and unchanged on its main branch in 2026-11: a bare LF is taken as a line end, obs-fold is
 * unfolded, and in {@code HttpHeaderParser.scanHeaderValue} a UTF-8 lead byte 0xE0-0xEF
 * (0xF0-0xF7) at the end of a header value takes the next 2 (3) bytes as its continuation
 * without checking them, so {@code X-A: v\xE0\r\nContent-Length: 5} becomes one header and the
 * body a second request. No public Pekko or Akka HTTP issue or advisory describes it (searched
 * 2026-11-30); it is to be reported privately to security@apache.org. A proxy in front must never
 * forward such bytes: the ingress's splice refuses them (400), and HAProxy 2.6, which forwards
 * them, needs a rule that denies header values with bytes above 0x7F. The cluster token
 * ({@code sluice.core.cluster-token}) keeps clients from reaching this endpoint directly.
 */
public final class ReplicaServer {

  private ReplicaServer() {}

  /**
   * Tries {@code ports} in order, skipping those this node's endpoints hold ({@link PortLedger});
   * completes with the first successful binding.
   */
  public static CompletionStage<ServerBinding> bind(
      ActorSystem<?> system, String host, List<Integer> ports, ReplicaHttpHandler handler) {
    return bindFrom(system, host, ports, 0, handler, PortLedger.get(system));
  }

  private static CompletionStage<ServerBinding> bindFrom(
      ActorSystem<?> system, String host, List<Integer> ports, int from,
      ReplicaHttpHandler handler, PortLedger ledger) {
    int index = from;
    while (index < ports.size() && !ledger.claim(ports.get(index))) {
      index++;
    }
    if (index >= ports.size()) {
      return CompletableFuture.failedFuture(new IllegalStateException(
          "no free port for the replica endpoint on " + host + " in " + describe(ports) + " ("
              + ledger.held() + " held by this node's replicas)"));
    }
    int port = ports.get(index);
    int next = index + 1;
    Materializer materializer = Materializer.matFromSystem(system);
    return Http.get(system).newServerAt(host, port)
        .withSettings(settings(system, handler.maxRequestBytes()))
        .connectionSource()
        .to(Sink.foreach(connection -> {
          handler.counters().connections.increment();
          connection.handleWithAsyncHandler(handler, materializer);
        }))
        .run(materializer)
        .handleAsync((binding, failure) -> {
          if (failure == null) {
            return CompletableFuture.completedFuture(binding);
          }
          ledger.release(port);  // held by another process
          return bindFrom(system, host, ports, next, handler, ledger);
        }, system.executionContext())
        .thenComposeAsync(stage -> stage, system.executionContext());
  }

  /**
   * HEAD is answered as GET without the body (a load balancer's HEAD /-/healthz, say). A
   * completion's body is read by {@link BoundedBody}, past this cap; anything else that reads a
   * body stops at it.
   */
  private static ServerSettings settings(ActorSystem<?> system, long maxRequestBytes) {
    ServerSettings settings = OpenAiParsingErrors.applyTo(ServerSettings.create(
        system.settings().config()).withTransparentHeadRequests(true));
    return settings.withParserSettings(settings.getParserSettings()
        .withMaxContentLength(BoundedBody.serverCap(maxRequestBytes)));
  }

  /**
   * Stops accepting, lets open requests finish for up to {@code deadline}, then closes and gives
   * the port back to this node's replicas.
   */
  public static CompletionStage<?> unbind(ActorSystem<?> system, ServerBinding binding,
      Duration deadline) {
    int port = binding.localAddress().getPort();
    return binding.terminate(deadline)
        .whenComplete((done, failure) -> PortLedger.get(system).release(port));
  }

  /** The range the ports came from (they may be rotated to start anywhere in it). */
  private static String describe(List<Integer> ports) {
    return ports.size() == 1 ? String.valueOf(ports.get(0))
        : java.util.Collections.min(ports) + ".." + java.util.Collections.max(ports);
  }
}
