package dev.sluice.ingress.splice;

import dev.sluice.core.http.ServeReason;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.HeaderField;
import dev.sluice.ingress.edge.HopByHop;
import dev.sluice.ingress.edge.UpstreamFailure;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One forwarded request: its client connection, the upstream connection serving it and the lease
 * it holds. Whatever ends it first (the answer's last byte, a failure on either side, the client
 * leaving) ends it once: the lease is released exactly once and the other side is closed.
 */
final class Exchange {

  private static final Logger log = LoggerFactory.getLogger(Exchange.class);
  /**
   * How many replicas a request is offered to when each refuses the connection before any byte
   * is sent (a node just died and the cluster has not noticed yet): as HAProxy's Lua action.
   */
  static final int MAX_REPLICAS_TRIED = 3;

  private final ClientConnection client;
  private final Decision.Forward target;
  private final SpliceRequest request;
  private final SpliceDispatcher dispatcher;
  /** The request as sent, kept only until the answer starts (to resend on a stale connection). */
  private byte[] bytes;
  private InetSocketAddress address;
  private UpstreamConnection upstream;
  private boolean retried;
  /** The replicas that refused this request before this one, in order. */
  private final List<String> refused;
  private boolean headSent;
  /**
   * The client's head, held back while body bytes of the same read follow it: head and first
   * body bytes then leave in one write (one wake-up of the client, not two).
   */
  private byte[] heldHead;
  /** Chunks read together leave as one (a chunked answer only). */
  private Rechunker rechunker;
  private boolean ended;
  /** The lease was kept until its TTL (the replica refused): nothing more to release. */
  private boolean leaseSettled;

  Exchange(ClientConnection client, Decision.Forward target, SpliceRequest request,
      SpliceDispatcher dispatcher, List<String> refused) {
    this.client = client;
    this.refused = refused;
    this.target = target;
    this.request = request;
    this.dispatcher = dispatcher;
    this.bytes = upstreamRequest(request, target);
  }

  /** Sends the request: at once when the replica's address is known, else after resolving it. */
  void start() {
    EventLoop loop = client.loop;
    address = loop.addresses.known(target.host(), target.port());
    if (address != null) {
      send();
      return;
    }
    loop.addresses.resolve(target.host(), target.port()).whenCompleteAsync((resolved, failure) -> {
      if (ended) {
        return;
      }
      if (failure != null) {
        fail(UpstreamFailure.UNREACHABLE, "its host name does not resolve");
        return;
      }
      address = resolved;
      send();
    }, loop);
  }

  private void send() {
    upstream = client.loop.pool.acquire(address);
    upstream.send(this, bytes);
  }

  void onInformational(byte[] head) {
    client.write(head, 0, head.length);
  }

  /** @param bodyFollows more bytes of this answer arrived in the same read as its head */
  void onHead(ResponseFraming framing, boolean bodyFollows) {
    HttpHead head = framing.head();
    bytes = null;
    client.requestReleased();
    if (framing.status() == 503 && ServeReason.REPLICA_AT_CAPACITY.value()
        .equals(head.header(SluiceHeaders.SERVE_REASON))) {
      target.lease().keepUntilTtl();
      leaseSettled = true;
    }
    headSent = true;
    String type = head.header("content-type");
    if (target.relayed()) {  // the relayed path's server picked the replica and names it
      client.loop.stats.observer.routed(client.trace, head.header(SluiceHeaders.REPLICA));
    }
    client.loop.stats.observer.head(client.trace, framing.status(),
        head.header(SluiceHeaders.SERVE_REASON),
        type != null && type.regionMatches(true, 0, "text/event-stream", 0, 17));
    if (framing.body() == ResponseFraming.Body.UNTIL_CLOSE) {
      client.closeAfterResponse();
    }
    rechunker = framing.body() == ResponseFraming.Body.CHUNKED
        ? new Rechunker(client.loop.rechunkScratch) : null;
    byte[] rendered = clientHead(head, client.closesAfterResponse());
    if (bodyFollows && framing.body() != ResponseFraming.Body.NONE) {
      heldHead = rendered;
    } else if (!client.write(rendered, 0, rendered.length)) {
      upstream.pause();
    }
  }

  boolean onBody(byte[] data, int offset, int length) {
    if (client.trace != null) {
      client.trace.body(data, offset, length);
    }
    if (rechunker != null) {
      Rechunker.Output out;
      try {
        out = rechunker.rechunk(data, offset, length);
      } catch (MalformedHttpException e) {  // passed the framing's scanner: cannot happen
        throw new IllegalStateException("re-chunking refused a validated body", e);
      }
      data = out.bytes();
      offset = out.offset();
      length = out.length();
    }
    byte[] head = heldHead;
    if (head == null) {
      return length == 0 || client.write(data, offset, length);
    }
    heldHead = null;
    byte[] both = Arrays.copyOf(head, head.length + length);
    System.arraycopy(data, offset, both, head.length, length);
    return client.write(both, 0, both.length);
  }

  /** The upstream read is handled: a head still held (no body byte came with it) goes now. */
  void endOfRead() {
    byte[] head = heldHead;
    if (head != null) {
      heldHead = null;
      if (!client.write(head, 0, head.length) && !ended && upstream != null) {
        upstream.pause();
      }
    }
  }

  void onComplete() {
    if (ended) {
      return;
    }
    ended = true;
    endOfRead();
    releaseLease();
    client.forwardDone();
  }

  /**
   * @param staleConnection a kept-alive connection the replica had closed (resent once on a new
   *     connection to the same replica)
   * @param unsent no byte of the request reached the replica (refused, or failed before the
   *     first byte): the router is asked once more, without this replica
   */
  void onUpstreamFailure(UpstreamFailure failure, String detail, boolean staleConnection,
      boolean unsent) {
    if (ended) {
      return;
    }
    if (staleConnection && !retried) {
      // A kept-alive connection the replica had closed: nothing was processed, send again once.
      retried = true;
      client.loop.stats.observer.upstreamRetried();
      upstream = new UpstreamConnection(client.loop, address);
      upstream.send(this, bytes);
      return;
    }
    if (unsent && !headSent && !target.relayed() && refused.size() + 1 < MAX_REPLICAS_TRIED) {
      ended = true;
      releaseLease();
      client.loop.stats.rerouted();
      log.info("Request {}: replica {} at {}:{} refused it before any byte was sent ({}): "
          + "asking the router for another replica", request.requestId(), target.replicaId(),
          target.host(), target.port(), detail);
      List<String> refusedNow = new ArrayList<>(refused);
      refusedNow.add(target.replicaId());
      client.reroute(request, List.copyOf(refusedNow));
      return;
    }
    fail(failure, detail);
  }

  private void fail(UpstreamFailure failure, String detail) {
    ended = true;
    releaseLease();
    if (headSent) {
      log.warn("Request {} to {} at {}:{} broke off midway: {}", request.requestId(),
          target.upstreamName(), target.host(), target.port(), detail);
      client.abort();  // the client sees a truncated answer, never a silently short one
    } else {
      log.warn("Request {} to {} at {}:{} failed before its answer started ({}): {}",
          request.requestId(), target.upstreamName(), target.host(), target.port(), failure,
          detail);
      Answer answer = dispatcher.upstreamFailed(target, request, failure, detail);
      client.respondFailure(answer);
    }
  }

  /** The replica sent nothing for the stream idle timeout: the client's answer is cut. */
  void onUpstreamSilent(long seconds) {
    if (ended) {
      return;
    }
    client.loop.stats.streamsCut("replica_silent");
    fail(UpstreamFailure.TIMED_OUT, "no byte for " + seconds + " s: the stream is cut");
  }

  /** The client went away (or the loop is stopping): stop the replica, free the capacity. */
  void onClientGone() {
    if (ended) {
      return;
    }
    ended = true;
    if (upstream != null) {
      upstream.close();
    }
    releaseLease();
  }

  private void releaseLease() {
    if (!leaseSettled) {
      leaseSettled = true;
      target.lease().release();
    }
  }

  void resumeUpstream() {
    if (!ended && upstream != null) {
      upstream.resume();
    }
  }

  /** For logs: which request, to which replica. */
  String describe() {
    return "request " + request.requestId() + " to " + target.upstreamName();
  }

  /**
   * The replica's head as the client gets it: its own connection fields dropped, the router's
   * pick, the request id and (when the upstream gave none) who served it added. Every value
   * here passed the strict response parser or is ours (made safe). The relayed path's server
   * names the replica itself: its {@code x-sluice-replica} is passed on.
   */
  private byte[] clientHead(HttpHead head, boolean close) {
    StringBuilder text = new StringBuilder(256);
    text.append(head.first).append(' ').append(head.second).append(' ').append(head.third)
        .append("\r\n");
    List<String> options = head.connectionOptions();
    for (HeaderField field : head.fields) {
      if (!HopByHop.dropped(field.name(), HopByHop.RESPONSE, options)
          || target.relayed() && field.is(SluiceHeaders.REPLICA)) {
        text.append(field.name()).append(": ").append(field.value()).append("\r\n");
      }
    }
    String replica = target.relayed() ? null : Answer.safeValue(target.replicaId());
    if (replica != null) {
      text.append(SluiceHeaders.REPLICA).append(": ").append(replica).append("\r\n");
    }
    if (replica != null && head.header(SluiceHeaders.SERVED_BY) == null) {
      // An external engine reached directly does not name itself; the replica it belongs to does.
      text.append(SluiceHeaders.SERVED_BY).append(": ").append(replica).append("\r\n");
    }
    text.append(SluiceHeaders.REQUEST_ID).append(": ").append(request.requestId()).append("\r\n");
    if (close) {
      text.append("connection: close\r\n");
    }
    return text.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * The request as the replica gets it: hop-by-hop fields and credentials dropped, the request id
   * and the dispatcher's fields set, the body framed by a Content-Length of ours.
   */
  static byte[] upstreamRequest(SpliceRequest request, Decision.Forward target) {
    StringBuilder text = new StringBuilder(512);
    text.append(request.method()).append(' ')
        .append(target.target() != null ? target.target() : request.target())
        .append(" HTTP/1.1\r\n");
    text.append("host: ").append(target.host()).append(':').append(target.port()).append("\r\n");
    List<String> options = HopByHop.connectionOptions(request.headers());
    for (HeaderField field : request.headers()) {
      if (!HopByHop.dropped(field.name(), HopByHop.REQUEST, options)) {
        text.append(field.name()).append(": ").append(field.value()).append("\r\n");
      }
    }
    text.append(SluiceHeaders.REQUEST_ID).append(": ").append(request.requestId()).append("\r\n");
    for (HeaderField extra : target.extraHeaders()) {
      text.append(extra.name()).append(": ").append(Answer.safeValue(extra.value()))
          .append("\r\n");
    }
    byte[] body = request.body();
    text.append("content-length: ").append(body.length).append("\r\n\r\n");
    byte[] head = text.toString().getBytes(StandardCharsets.ISO_8859_1);
    byte[] all = new byte[head.length + body.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(body, 0, all, head.length, body.length);
    return all;
  }
}
