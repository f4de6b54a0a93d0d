package dev.sluice.deploy;

/**
 * Every hostile input of {@link HostileCases} against the relayed path ({@code direct-streaming =
 * off}, the rollback), with the invariants and answers of {@link HostileInputIT}: the same strict
 * reader is its front door. (Pekko HTTP's own parser, which that path once faced clients with,
 * answered a request smuggled behind a bare LF or a UTF-8 lead byte on the sender's connection.)
 */
class RelayedHostileInputIT extends HostileInputIT {

  @Override
  String nodeSettings() {
    return "sluice.ingress.direct-streaming = off";
  }
}
