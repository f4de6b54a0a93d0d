package dev.sluice.ingress.edge;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.Bearer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The API keys a public ingress accepts as {@code Authorization: Bearer <key>}, checked in
 * constant time ({@link Bearer}). Only digests are kept; no key is ever logged.
 *
 * <p>Keys come from the config ({@code api-keys}) and from a file ({@code api-keys-file}), which
 * {@link #reload()} reads again when its content changes: a key added to it is accepted, a key
 * removed from it refused, without a restart. A file that cannot be read keeps the keys in
 * effect. Keys are required as soon as either source is configured: a file that holds no key
 * (any more) lets no request in, never every request.
 */
public final class ApiKeys {

  /** No keys: every request is let in (the default of {@code sluice local}). */
  public static final ApiKeys NONE = new ApiKeys(List.of(), Optional.empty());

  private static final String FILE_KEY = "sluice.ingress.api-keys-file";

  private final List<byte[]> fixed;
  private final Optional<Path> file;
  private volatile Loaded loaded;
  /** The file's last problem, so that each is logged once, not at every reload. */
  private String lastProblem = "";

  /** The digests in effect, and the file content they came from. */
  private record Loaded(List<byte[]> digests, byte[] fileDigest) {}

  private ApiKeys(List<byte[]> fixed, Optional<Path> file) {
    this.fixed = fixed;
    this.file = file;
    this.loaded = new Loaded(fixed, new byte[0]);
  }

  /** These keys, blank entries ignored; duplicates count once. */
  public static ApiKeys of(Collection<String> keys) {
    return new ApiKeys(digests(keys, "sluice.ingress.api-keys"), Optional.empty());
  }

  /**
   * The config's keys plus those of {@code file}, which must be readable and hold at least one
   * key (a file with none is a mistake that would refuse every request).
   */
  public static ApiKeys withFile(Collection<String> keys, Path file) {
    ApiKeys apiKeys = new ApiKeys(digests(keys, "sluice.ingress.api-keys"), Optional.of(file));
    String content;
    try {
      content = Files.readString(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(FILE_KEY + ": " + file + " cannot be read ("
          + e.getClass().getSimpleName() + ")", e);
    }
    List<byte[]> fromFile = digests(lines(content), FILE_KEY);
    if (fromFile.isEmpty()) {
      throw new IllegalArgumentException(FILE_KEY + ": " + file + " holds no key (expected: "
          + "one key per line; to let every request in, leave api-keys-file unset)");
    }
    apiKeys.loaded = new Loaded(union(apiKeys.fixed, fromFile), Bearer.digest(content));
    return apiKeys;
  }

  /**
   * Reads the file again if its content changed. Returns what happened, for the log (counts and
   * reasons, never a key), or empty when nothing did. A file that cannot be read, or holds a key
   * that cannot travel in a header, keeps the keys in effect.
   */
  public synchronized Optional<Reload> reload() {
    if (file.isEmpty()) {
      return Optional.empty();
    }
    String content;
    List<byte[]> fromFile;
    try {
      content = Files.readString(file.get());
      fromFile = digests(lines(content), FILE_KEY);
    } catch (IOException | IllegalArgumentException e) {
      String problem = e instanceof IOException ? "cannot be read ("
          + e.getClass().getSimpleName() + ")" : "holds a key that cannot travel in a header";
      if (problem.equals(lastProblem)) {
        return Optional.empty();
      }
      lastProblem = problem;
      return Optional.of(new Reload(false, true, FILE_KEY + ": " + file.get() + " " + problem
          + "; the " + size() + " keys in effect stay"));
    }
    lastProblem = "";
    byte[] fileDigest = Bearer.digest(content);
    if (MessageDigest.isEqual(fileDigest, loaded.fileDigest())) {
      return Optional.empty();
    }
    int before = size();
    loaded = new Loaded(union(fixed, fromFile), fileDigest);
    if (loaded.digests().isEmpty()) {
      return Optional.of(new Reload(true, true, FILE_KEY + ": " + file.get() + " holds no key now: "
          + "every request is refused (401) until it holds one"));
    }
    return Optional.of(new Reload(true, false, FILE_KEY + ": " + file.get() + " changed: "
        + size() + " keys accepted (were " + before + ")"));
  }

  /**
   * What a {@link #reload()} did: whether the keys in effect {@code changed} (else the file could
   * not be used and they stay), and a message for the log, at WARN when {@code warning}.
   */
  public record Reload(boolean changed, boolean warning, String message) {}

  /**
   * The 401 of a request without a key ({@code missing}) or with one not accepted, the same on
   * every data path (the ingress's, HAProxy's).
   */
  public static ApiError refusal(boolean missing) {
    return new ApiError(ApiError.Code.INVALID_API_KEY, missing
        ? "Missing API key: send it as Authorization: Bearer <key>"
        : "Incorrect API key provided", null);
  }

  /** Whether clients must send a key: keys or a keys file are configured. */
  public boolean enabled() {
    return !fixed.isEmpty() || file.isPresent();
  }

  /** The keys accepted now. */
  public int size() {
    return loaded.digests().size();
  }

  /** Whether an {@code Authorization} header value (null when absent) carries a known key. */
  public boolean accepts(String authorization) {
    return Bearer.matchesAny(loaded.digests(), authorization);
  }

  /** The keys' SHA-256 digests in lowercase hex, sorted (for a data plane that checks them). */
  public List<String> hexDigests() {
    return loaded.digests().stream().map(digest -> HexFormat.of().formatHex(digest)).sorted()
        .toList();
  }

  @Override
  public String toString() {
    return "ApiKeys[" + size() + " keys]";
  }

  /** Keys of a file, one per line; blank lines and lines starting with {@code #} are skipped. */
  private static List<String> lines(String content) {
    List<String> keys = new ArrayList<>();
    for (String line : content.split("\n")) {
      String trimmed = line.strip();
      if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
        keys.add(trimmed);
      }
    }
    return keys;
  }

  private static List<byte[]> digests(Collection<String> keys, String source) {
    Set<String> unique = new LinkedHashSet<>();
    for (String key : keys) {
      String trimmed = key.strip();
      if (trimmed.isEmpty()) {
        continue;
      }
      if (!Bearer.isPrintable(trimmed)) {
        throw new IllegalArgumentException(source + ": a key has a character that cannot "
            + "travel in a header (expected: printable ASCII without spaces)");
      }
      unique.add(trimmed);
    }
    List<byte[]> digests = new ArrayList<>();
    unique.forEach(key -> digests.add(Bearer.digest(key)));
    return List.copyOf(digests);
  }

  /** Both lists' digests, each once. */
  private static List<byte[]> union(List<byte[]> a, List<byte[]> b) {
    List<byte[]> all = new ArrayList<>(a);
    for (byte[] digest : b) {
      if (all.stream().noneMatch(known -> Arrays.equals(known, digest))) {
        all.add(digest);
      }
    }
    return List.copyOf(all);
  }

}
