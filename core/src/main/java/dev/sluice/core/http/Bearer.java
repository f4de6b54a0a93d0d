package dev.sluice.core.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * Bearer credentials ({@code Authorization: Bearer <token>}, RFC 6750) and their constant-time
 * check: only SHA-256 digests of the secrets are kept, and a presented token is compared with
 * every one of them, so neither a secret's contents nor which one matched shows in the timing.
 */
public final class Bearer {

  private Bearer() {}

  /** The token of {@code Bearer <token>} (scheme case-insensitive), or null. */
  public static String token(String authorization) {
    if (authorization == null || authorization.length() < 8
        || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    String token = authorization.substring(7).strip();
    return token.isEmpty() ? null : token;
  }

  /** Whether {@code authorization} carries a token whose digest is one of {@code digests}. */
  public static boolean matchesAny(List<byte[]> digests, String authorization) {
    String token = token(authorization);
    if (token == null || digests.isEmpty()) {
      return false;
    }
    byte[] presented = digest(token);
    boolean found = false;
    for (byte[] digest : digests) {
      found |= MessageDigest.isEqual(digest, presented);
    }
    return found;
  }

  public static byte[] digest(String secret) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Whether {@code secret} can travel in a header: printable ASCII, no spaces. */
  public static boolean isPrintable(String secret) {
    if (secret.isEmpty()) {
      return false;
    }
    for (int i = 0; i < secret.length(); i++) {
      char c = secret.charAt(i);
      if (c <= 0x20 || c >= 0x7f) {
        return false;
      }
    }
    return true;
  }
}
