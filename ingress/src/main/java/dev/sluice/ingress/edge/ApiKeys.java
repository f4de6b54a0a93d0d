package dev.sluice.ingress.edge;

import dev.sluice.core.http.Bearer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The API keys a public ingress accepts as {@code Authorization: Bearer <key>}, checked in
 * constant time ({@link Bearer}). Only digests are kept; no key is ever logged.
 */
public final class ApiKeys {

  /** No keys: every request is let in (the default of {@code sluice local}). */
  public static final ApiKeys NONE = new ApiKeys(List.of());

  private final List<byte[]> digests;

  private ApiKeys(List<byte[]> digests) {
    this.digests = digests;
  }

  /** These keys, blank entries ignored; duplicates count once. */
  public static ApiKeys of(Collection<String> keys) {
    Set<String> unique = new LinkedHashSet<>();
    for (String key : keys) {
      String trimmed = key.strip();
      if (trimmed.isEmpty()) {
        continue;
      }
      if (!Bearer.isPrintable(trimmed)) {
        throw new IllegalArgumentException("sluice.ingress.api-keys: a key has a character "
            + "that cannot travel in a header (expected: printable ASCII without spaces)");
      }
      unique.add(trimmed);
    }
    List<byte[]> digests = new ArrayList<>();
    unique.forEach(key -> digests.add(Bearer.digest(key)));
    return new ApiKeys(List.copyOf(digests));
  }

  /** Keys of a file, one per line; blank lines and lines starting with {@code #} are skipped. */
  public static List<String> readFile(Path file) {
    try {
      List<String> keys = new ArrayList<>();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        String trimmed = line.strip();
        if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
          keys.add(trimmed);
        }
      }
      return keys;
    } catch (IOException e) {
      throw new IllegalArgumentException("sluice.ingress.api-keys-file: " + file
          + " cannot be read (" + e.getClass().getSimpleName() + ")", e);
    }
  }

  public boolean enabled() {
    return !digests.isEmpty();
  }

  public int size() {
    return digests.size();
  }

  /** Whether an {@code Authorization} header value (null when absent) carries a known key. */
  public boolean accepts(String authorization) {
    return Bearer.matchesAny(digests, authorization);
  }

  /** The keys' SHA-256 digests in lowercase hex, sorted (for a data plane that checks them). */
  public List<String> hexDigests() {
    return digests.stream().map(digest -> HexFormat.of().formatHex(digest)).sorted().toList();
  }

  @Override
  public String toString() {
    return "ApiKeys[" + digests.size() + " keys]";
  }
}
