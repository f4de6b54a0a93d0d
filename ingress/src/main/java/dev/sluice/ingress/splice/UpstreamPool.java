package dev.sluice.ingress.splice;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Kept-alive connections to replica endpoints, per loop (so a stream and its upstream connection
 * share a thread). Most recently used first: warm connections serve, cold ones time out.
 */
final class UpstreamPool {

  private final EventLoop loop;
  private final Map<InetSocketAddress, ArrayDeque<UpstreamConnection>> idle = new HashMap<>();

  UpstreamPool(EventLoop loop) {
    this.loop = loop;
  }

  /** An idle open connection to {@code address}, or a new one being opened. */
  UpstreamConnection acquire(InetSocketAddress address) {
    ArrayDeque<UpstreamConnection> connections = idle.get(address);
    while (connections != null && !connections.isEmpty()) {
      UpstreamConnection connection = connections.pollFirst();
      if (connection.open()) {
        loop.stats.observer.upstreamReused();
        return connection;
      }
    }
    loop.stats.observer.upstreamConnected();
    return new UpstreamConnection(loop, address);
  }

  void release(UpstreamConnection connection) {
    idle.computeIfAbsent(connection.address, k -> new ArrayDeque<>()).addFirst(connection);
  }

  void forget(UpstreamConnection connection) {
    ArrayDeque<UpstreamConnection> connections = idle.get(connection.address);
    if (connections != null) {
      connections.remove(connection);
      if (connections.isEmpty()) {
        idle.remove(connection.address);
      }
    }
  }
}
