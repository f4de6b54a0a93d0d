package dev.sluice.deploy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;

/** Checks, before a node starts, that the ports it will listen on are free, naming any that is not. */
final class Ports {

  private Ports() {}

  /**
   * Fails with a message naming the port and its use when one of {@code ports} (use -> port;
   * 0 or less = ephemeral or none) cannot be bound on {@code host}.
   */
  static void requireFree(String host, Map<String, Integer> ports) {
    for (Map.Entry<String, Integer> entry : ports.entrySet()) {
      int port = entry.getValue();
      if (port <= 0) {
        continue;
      }
      try (ServerSocket probe = new ServerSocket()) {
        probe.setReuseAddress(true);  // a port in TIME_WAIT is free to the node's own bind too
        probe.bind(new InetSocketAddress(host, port));
      } catch (IOException e) {
        throw new IllegalStateException("port " + port + " (" + entry.getKey() + ") is already "
            + "in use on " + host + ": stop what holds it (e.g. `ss -ltnp 'sport = :" + port
            + "'` shows who), or choose other ports (see --help)");
      }
    }
  }
}
