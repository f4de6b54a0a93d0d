package dev.sluice.ingress.edge;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Header fields about one connection, not the message (RFC 9110 §7.6.1), and the fields this
 * ingress sets itself: none of them is passed on in either direction.
 */
public final class HopByHop {

  /** Request fields never sent on to a replica (framing and credentials are set here). */
  public static final Set<String> REQUEST = Set.of("connection", "keep-alive",
      "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
      "transfer-encoding", "upgrade", "host", "content-length", "expect", "authorization",
      "x-request-id");

  /** Response fields never passed back to a client (this ingress sets its own). */
  public static final Set<String> RESPONSE = Set.of("connection", "keep-alive",
      "proxy-connection", "trailer", "upgrade", "x-sluice-replica", "x-request-id");

  private HopByHop() {}

  /** Whether {@code name} is dropped: listed in {@code set} or in the message's Connection. */
  public static boolean dropped(String name, Set<String> set, List<String> connectionOptions) {
    String lower = name.toLowerCase(Locale.ROOT);
    return set.contains(lower) || connectionOptions.contains(lower);
  }

  /** Field names listed in the Connection header(s), lowercase. */
  public static List<String> connectionOptions(List<HeaderField> fields) {
    List<String> names = new ArrayList<>();
    for (HeaderField field : fields) {
      if (field.is("connection")) {
        for (String part : field.value().split(",")) {
          String name = part.strip().toLowerCase(Locale.ROOT);
          if (!name.isEmpty()) {
            names.add(name);
          }
        }
      }
    }
    return names;
  }
}
