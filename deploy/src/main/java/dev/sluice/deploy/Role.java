package dev.sluice.deploy;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The roles a node can have (DESIGN.md §2). */
public enum Role {
  /** Controller, LLMRouter (and later CapacityQueue) singletons, router HTTP endpoint. */
  CONTROL,
  /** The OpenAI front door. */
  INGRESS,
  /** NodeAgent and replicas. */
  REPLICA;

  public String clusterRole() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code control,ingress}; names the bad value and the allowed ones. */
  public static Set<Role> parse(String text) {
    Set<Role> roles = EnumSet.noneOf(Role.class);
    for (String part : text.split(",")) {
      String name = part.trim();
      if (name.isEmpty()) {
        continue;
      }
      try {
        roles.add(valueOf(name.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "--roles: '" + name + "' (expected: control, ingress, replica)");
      }
    }
    if (roles.isEmpty()) {
      throw new IllegalArgumentException("--roles: '" + text + "' (expected: at least one role)");
    }
    return roles;
  }
}
