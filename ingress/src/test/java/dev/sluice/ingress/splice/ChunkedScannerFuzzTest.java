package dev.sluice.ingress.splice;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Any bytes as a chunked body: only {@link MalformedHttpException} may come out, and however the
 * bytes arrive (whole, byte by byte, in random pieces) the scanner ends at the same byte with the
 * same data, or refuses them all. Any data, chunked by a correct encoder (random chunk sizes,
 * extensions, trailers), decodes back to itself and ends exactly where the encoding ends.
 *
 * <p>Seeds: {@code ChunkedScannerFuzzTestInputs/} beside this class in
 * {@code src/test/resources}.
 */
class ChunkedScannerFuzzTest {

  /** What a scan came to: refused, or how many bytes it took, whether it ended, the data. */
  record Outcome(boolean refused, int consumed, boolean done, String data) {
    static final Outcome REFUSED = new Outcome(true, 0, false, "");
  }

  @FuzzTest(maxDuration = "20s")
  void anySplitScansAlikeAndEncodedDataDecodesBack(byte[] input) {
    SplittableRandom random = new SplittableRandom(Arrays.hashCode(input));

    Outcome whole = scan(input, input.length, true, random);
    assertThat(scan(input, 1, true, random)).as("byte by byte").isEqualTo(whole);
    assertThat(scan(input, 0, true, random)).as("random pieces").isEqualTo(whole);
    Outcome response = scan(input, input.length, false, random);
    assertThat(scan(input, 1, false, random)).as("response, byte by byte").isEqualTo(response);
    if (!whole.refused()) {
      // A response's trailers may also carry obs-text, so it takes every request body alike.
      assertThat(response.refused()).isFalse();
      assertThat(response.consumed()).isEqualTo(whole.consumed());
      assertThat(response.done()).isEqualTo(whole.done());
    }
    if (whole.done()) {
      assertThat(whole.consumed()).isGreaterThanOrEqualTo(5);
    } else if (!whole.refused()) {
      assertThat(whole.consumed()).as("an unfinished body takes every byte")
          .isEqualTo(input.length);
    }

    byte[] encoded = encode(input, random);
    byte[] followed = Arrays.copyOf(encoded, encoded.length + 4);
    System.arraycopy("NEXT".getBytes(StandardCharsets.US_ASCII), 0, followed, encoded.length, 4);
    Outcome expected = new Outcome(false, encoded.length, true, latin1(input));
    assertThat(scan(followed, followed.length, true, random)).as("decoding %s", latin1(encoded))
        .isEqualTo(expected);
    assertThat(scan(followed, 1, true, random)).isEqualTo(expected);
    assertThat(scan(followed, 0, true, random)).isEqualTo(expected);
  }

  /**
   * Scans {@code bytes} in pieces of {@code piece} bytes (0: random sizes) until the body ends,
   * as a connection does: bytes after the end are not fed.
   */
  private static Outcome scan(byte[] bytes, int piece, boolean request,
      SplittableRandom random) {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    ChunkedScanner scanner = request ? new ChunkedScanner(data::write) : new ChunkedScanner();
    int consumed = 0;
    try {
      for (int from = 0; from < bytes.length && !scanner.done(); ) {
        int length = Math.min(bytes.length - from, piece > 0 ? piece : 1 + random.nextInt(16));
        int taken = scanner.scan(bytes, from, length);
        assertThat(taken).isBetween(0, length);
        if (taken < length) {
          assertThat(scanner.done()).as("took part of a piece without ending").isTrue();
        }
        consumed += taken;
        from += length;
      }
    } catch (MalformedHttpException e) {
      assertThat(e.getMessage()).isNotBlank();
      return Outcome.REFUSED;
    }
    return new Outcome(false, consumed, scanner.done(),
        new String(data.toByteArray(), StandardCharsets.ISO_8859_1));
  }

  /** RFC 9112 §7.1 chunked coding of {@code data} in random chunks, extensions and trailers. */
  private static byte[] encode(byte[] data, SplittableRandom random) {
    StringBuilder wire = new StringBuilder();
    int at = 0;
    while (at < data.length) {
      int size = Math.min(data.length - at, 1 + random.nextInt(random.nextBoolean() ? 8 : 300));
      String hex = Integer.toHexString(size);
      hex = "0".repeat(random.nextInt(4)) + (random.nextBoolean() ? hex : hex.toUpperCase());
      wire.append(hex).append(extension(random)).append("\r\n")
          .append(latin1(Arrays.copyOfRange(data, at, at + size))).append("\r\n");
      at += size;
    }
    wire.append("0".repeat(1 + random.nextInt(3))).append(extension(random)).append("\r\n");
    for (int i = random.nextInt(3); i > 0; i--) {
      wire.append("x-trailer-").append(i).append(": value \t").append(i).append("\r\n");
    }
    return wire.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String extension(SplittableRandom random) {
    return switch (random.nextInt(4)) {
      case 0 -> ";name=value";
      case 1 -> " ;q=\"a b\"";
      case 2 -> "\t;flag";
      default -> "";
    };
  }

  private static String latin1(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }
}
