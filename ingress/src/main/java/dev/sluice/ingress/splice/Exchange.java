package dev.sluice.ingress.splice;

import dev.sluice.core.http.ServeReason;
import dev.sluice.core.http.SluiceHeaders;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One forwarded request: its client connection, the upstream connection serving it and the lease
 * it holds. Whatever ends it first (the answer's last byte, a failure on either side, the client
 * leaving) ends it once: the lease is released exactly once and the other side is closed.
 */
final class Exchange {

  /** Response fields this ingress sets itself. */
  private static final Set<String> REPLACED = Set.of("connection", "keep-alive",
      "proxy-connection", SluiceHeaders.REPLICA, SluiceHeaders.REQUEST_ID);

  private final ClientConnection client;
  private final Decision.Forward target;
  /** Kept only until the answer starts (to resend on a stale kept-alive connection). */
  private byte[] request;
  private UpstreamConnection upstream;
  private boolean retried;
  private boolean headSent;
  private boolean ended;
  /** The lease was kept until its TTL (the replica refused): nothing more to release. */
  private boolean leaseSettled;

  Exchange(ClientConnection client, Decision.Forward target, byte[] request) {
    this.client = client;
    this.target = target;
    this.request = request;
  }

  void start() {
    upstream = client.loop.pool.acquire(target.host(), target.port());
    upstream.send(this, request);
  }

  void onInformational(byte[] head) {
    client.write(head, 0, head.length);
  }

  void onHead(ResponseFraming framing) {
    HttpHead head = framing.head();
    request = null;
    if (framing.status() == 503 && ServeReason.REPLICA_AT_CAPACITY.value()
        .equals(head.header(SluiceHeaders.SERVE_REASON))) {
      target.lease().keepUntilTtl();
      leaseSettled = true;
    }
    headSent = true;
    if (framing.body() == ResponseFraming.Body.UNTIL_CLOSE) {
      client.closeAfterResponse();
    }
    byte[] bytes = clientHead(head, client.closesAfterResponse());
    if (!client.write(bytes, 0, bytes.length)) {
      upstream.pause();
    }
  }

  boolean onBody(byte[] bytes, int offset, int length) {
    return client.write(bytes, offset, length);
  }

  void onComplete() {
    if (ended) {
      return;
    }
    ended = true;
    releaseLease();
    client.forwardDone();
  }

  void onUpstreamFailure(SpliceDispatcher.UpstreamFailure failure, String detail,
      boolean staleConnection) {
    if (ended) {
      return;
    }
    if (staleConnection && !retried) {
      // A kept-alive connection the replica had closed: nothing was processed, send again once.
      retried = true;
      upstream = new UpstreamConnection(client.loop, target.host(), target.port());
      upstream.send(this, request);
      return;
    }
    ended = true;
    releaseLease();
    if (headSent) {
      client.abort();  // the client sees a truncated answer, never a silently short one
    } else {
      client.respondFailure(target, failure, detail);
    }
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

  private byte[] clientHead(HttpHead head, boolean close) {
    StringBuilder text = new StringBuilder(256);
    text.append(head.first).append(' ').append(head.second).append(' ').append(head.third)
        .append("\r\n");
    List<String> options = head.connectionOptions();
    for (HeaderField field : head.fields) {
      String name = field.name().toLowerCase(Locale.ROOT);
      if (!REPLACED.contains(name) && !options.contains(name)) {
        text.append(field.name()).append(": ").append(field.value()).append("\r\n");
      }
    }
    text.append(SluiceHeaders.REPLICA).append(": ").append(target.replicaId()).append("\r\n");
    text.append(SluiceHeaders.REQUEST_ID).append(": ").append(target.requestId()).append("\r\n");
    if (close) {
      text.append("connection: close\r\n");
    }
    return text.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  /** The request as the replica gets it: hop-by-hop fields dropped, the request id set. */
  static byte[] upstreamRequest(SpliceRequest request, Decision.Forward target) {
    StringBuilder text = new StringBuilder(512);
    text.append(request.method()).append(' ').append(request.target()).append(" HTTP/1.1\r\n");
    text.append("host: ").append(target.host()).append(':').append(target.port()).append("\r\n");
    List<String> options = HeaderField.connectionOptions(request.headers());
    for (HeaderField field : request.headers()) {
      String name = field.name().toLowerCase(Locale.ROOT);
      if (!HOP_BY_HOP.contains(name) && !options.contains(name)) {
        text.append(field.name()).append(": ").append(field.value()).append("\r\n");
      }
    }
    text.append(SluiceHeaders.REQUEST_ID).append(": ").append(target.requestId()).append("\r\n");
    for (HeaderField extra : target.extraHeaders()) {
      text.append(extra.name()).append(": ").append(extra.value()).append("\r\n");
    }
    text.append("content-length: ").append(request.body().length).append("\r\n\r\n");
    byte[] head = text.toString().getBytes(StandardCharsets.ISO_8859_1);
    byte[] all = new byte[head.length + request.body().length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(request.body(), 0, all, head.length, request.body().length);
    return all;
  }

  /** Request fields about the client's connection, not the request (RFC 9110 §7.6.1). */
  private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive",
      "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
      "transfer-encoding", "upgrade", "host", "content-length", "expect",
      SluiceHeaders.REQUEST_ID);
}
