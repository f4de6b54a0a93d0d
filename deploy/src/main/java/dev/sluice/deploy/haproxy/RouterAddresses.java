package dev.sluice.deploy.haproxy;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The router endpoints a Lua action asks, in order: {@code host:port[,host:port...]}. Every
 * control node serves one, which reaches the router singleton wherever it runs, so a HAProxy
 * given several keeps routing when one of their nodes is gone: a router that refuses the
 * connection is passed over for the next.
 */
public final class RouterAddresses {

  /** A host HAProxy's config and the Lua action can hold as it is: a name, IPv4 or IPv6. */
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.:-]+");

  private RouterAddresses() {}

  /**
   * Parses {@code value}, naming {@code setting} in the error.
   *
   * @throws IllegalArgumentException for an empty list, an entry that is not {@code host:port},
   *     or one given twice
   */
  public static List<URI> parse(String setting, String value) {
    List<URI> routers = new ArrayList<>();
    for (String entry : value.split(",", -1)) {
      String hostPort = entry.strip();
      int colon = hostPort.lastIndexOf(':');
      String host = colon > 0 ? hostPort.substring(0, colon) : "";
      if (host.startsWith("[") && host.endsWith("]")) {  // an IPv6 address as in a URL
        host = host.substring(1, host.length() - 1);
      }
      String port = colon > 0 ? hostPort.substring(colon + 1) : "";
      if (!HOST.matcher(host).matches() || !port.matches("[0-9]{1,5}")
          || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
        throw new IllegalArgumentException(setting + ": '" + entry.strip() + "' (expected "
            + "HOST:PORT, or several separated by commas)");
      }
      URI uri = URI.create("tcp://" + (host.contains(":") ? "[" + host + "]" : host) + ":"
          + port);
      if (routers.contains(uri)) {
        throw new IllegalArgumentException(setting + ": '" + hostPort + "' given twice");
      }
      routers.add(uri);
    }
    return List.copyOf(routers);
  }

  /** {@code host:port}, as the Lua action reads it (an IPv6 host without brackets). */
  public static String hostPort(URI router) {
    return host(router) + ":" + router.getPort();
  }

  /** The host as the Lua action connects to it: an IPv6 address without brackets. */
  public static String host(URI router) {
    String host = router.getHost();
    return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
  }
}
