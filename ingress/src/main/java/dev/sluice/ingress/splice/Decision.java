package dev.sluice.ingress.splice;

import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.HeaderField;
import java.util.List;

/** What to do with a request: answer it here, or splice it to a replica's own endpoint. */
public sealed interface Decision {

  /** Answer with this answer made here. */
  record Respond(Answer answer) implements Decision {}

  /**
   * Send the request to {@code host:port} with {@code extraHeaders} added, and splice the answer
   * back byte for byte with {@code x-sluice-replica} and {@code x-request-id} added; {@code lease}
   * is released when the answer ends, however it ends. {@code target} is the request target the
   * replica gets (the client's with the application's route prefix taken off), null for the
   * client's own. {@code replicaId} is null when the request goes to the relayed path's server
   * on this node ({@link #relay}), which picks the replica and names it in its answer.
   */
  record Forward(String host, int port, String replicaId, List<HeaderField> extraHeaders,
      Lease lease, String target) implements Decision {

    /** The request goes to the replica with the client's request target. */
    public Forward(String host, int port, String replicaId, List<HeaderField> extraHeaders,
        Lease lease) {
      this(host, port, replicaId, extraHeaders, lease, null);
    }

    /**
     * The request goes, as the client sent it, to the relayed path's server at {@code
     * host:port}: another Sluice front door (Pekko HTTP) that routes it, holds its lease and sets
     * {@code x-sluice-replica} on its answer, which is passed on.
     */
    public static Forward relay(String host, int port, List<HeaderField> extraHeaders) {
      return new Forward(host, port, null, extraHeaders, Lease.NONE, null);
    }

    /** Whether this goes to the relayed path's server ({@link #relay}), not to a replica. */
    public boolean relayed() {
      return replicaId == null;
    }

    /** What the request went to, for logs and error messages. */
    public String upstreamName() {
      return relayed() ? "the relayed path's server" : "replica " + replicaId;
    }
  }

  /** Capacity held for one forwarded request; the splice calls exactly one of the two, once. */
  interface Lease {
    /** The answer ended, failed, or its client went away. */
    void release();

    /** The replica refused for lack of capacity: keep the lease until its TTL instead. */
    void keepUntilTtl();

    Lease NONE = new Lease() {
      @Override
      public void release() {}

      @Override
      public void keepUntilTtl() {}
    };
  }
}
