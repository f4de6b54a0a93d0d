package dev.sluice.ingress.edge;

import java.util.List;

/** A header field: the name's case kept, the value trimmed. */
public record HeaderField(String name, String value) {

  public boolean is(String lowercaseName) {
    return name.equalsIgnoreCase(lowercaseName);
  }

  /** The first value of a header in {@code fields}, or null. */
  public static String first(List<HeaderField> fields, String lowercaseName) {
    for (HeaderField field : fields) {
      if (field.is(lowercaseName)) {
        return field.value();
      }
    }
    return null;
  }
}
