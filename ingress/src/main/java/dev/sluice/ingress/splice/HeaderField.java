package dev.sluice.ingress.splice;

/** A header field as received: the name's case kept, the value trimmed. */
public record HeaderField(String name, String value) {

  public boolean is(String lowercaseName) {
    return name.equalsIgnoreCase(lowercaseName);
  }
}
