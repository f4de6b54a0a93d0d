package dev.sluice.core;

import java.security.SecureRandom;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Identity of one replica: {@code <app>#<deployment>#<unique-id>}, the unique id being 8 lowercase
 * alphanumerics (DESIGN.md §3). The string form is what travels in headers and routing answers.
 */
public record ReplicaId(String app, String deployment, String uniqueId) {

  private static final Pattern UNIQUE_ID = Pattern.compile("[a-z0-9]{8}");
  private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();

  public ReplicaId {
    Objects.requireNonNull(app, "app");
    Objects.requireNonNull(deployment, "deployment");
    Objects.requireNonNull(uniqueId, "uniqueId");
    if (app.isEmpty() || app.contains("#")) {
      throw new IllegalArgumentException("app: '" + app + "' (expected: non-empty, no '#')");
    }
    if (deployment.isEmpty() || deployment.contains("#")) {
      throw new IllegalArgumentException(
          "deployment: '" + deployment + "' (expected: non-empty, no '#')");
    }
    if (!UNIQUE_ID.matcher(uniqueId).matches()) {
      throw new IllegalArgumentException(
          "unique id: '" + uniqueId + "' (expected: 8 lowercase alphanumerics)");
    }
  }

  /** A new replica id with a random unique id. */
  public static ReplicaId random(DeploymentId deployment) {
    char[] id = new char[8];
    for (int i = 0; i < id.length; i++) {
      id[i] = ALPHABET[RANDOM.nextInt(ALPHABET.length)];
    }
    return new ReplicaId(deployment.app(), deployment.name(), new String(id));
  }

  /** Parses {@code app#deployment#uniqueid}. */
  public static ReplicaId parse(String text) {
    Objects.requireNonNull(text, "text");
    String[] parts = text.split("#", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "replica id: '" + text + "' (expected: <app>#<deployment>#<unique-id>)");
    }
    return new ReplicaId(parts[0], parts[1], parts[2]);
  }

  public DeploymentId deploymentId() {
    return new DeploymentId(app, deployment);
  }

  @Override
  public String toString() {
    return app + "#" + deployment + "#" + uniqueId;
  }
}
