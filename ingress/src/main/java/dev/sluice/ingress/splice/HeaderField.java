package dev.sluice.ingress.splice;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A header field as received: the name's case kept, the value trimmed. */
public record HeaderField(String name, String value) {

  public boolean is(String lowercaseName) {
    return name.equalsIgnoreCase(lowercaseName);
  }

  /**
   * Header names listed in {@code Connection}: hop-by-hop for this message only (RFC 9110
   * §7.6.1), lowercase.
   */
  static List<String> connectionOptions(List<HeaderField> fields) {
    List<String> names = new ArrayList<>();
    for (HeaderField field : fields) {
      if (field.is("connection")) {
        for (String part : field.value().split(",")) {
          names.add(part.trim().toLowerCase(Locale.ROOT));
        }
      }
    }
    return names;
  }
}
