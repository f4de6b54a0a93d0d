package dev.sluice.ingress.edge;

/** How a request sent to a replica failed before any byte of its answer reached the client. */
public enum UpstreamFailure {
  /** The replica's endpoint refused or did not accept the connection in time: nothing was sent. */
  UNREACHABLE,
  /** The connection failed, or the replica answered with something that is not HTTP. */
  FAILED,
  /** No answer within the response timeout. */
  TIMED_OUT
}
