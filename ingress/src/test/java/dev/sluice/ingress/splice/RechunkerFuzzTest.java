package dev.sluice.ingress.splice;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Any bytes as a replica's chunked body, cut into reads at random: what the framing's scanner
 * takes, the {@link Rechunker} re-frames without failing, and the client decodes the same data
 * and the same trailer section from it, framed strictly.
 *
 * <p>Seeds: {@code RechunkerFuzzTestInputs/} beside this class in {@code src/test/resources}.
 */
class RechunkerFuzzTest {

  @FuzzTest(maxDuration = "20s")
  void reChunkedBodiesDecodeToWhatTheReplicaSent(byte[] input) throws Exception {
    SplittableRandom random = new SplittableRandom(Arrays.hashCode(input));
    ChunkedScanner framing = new ChunkedScanner();
    Rechunker rechunker = new Rechunker();
    ByteArrayOutputStream accepted = new ByteArrayOutputStream();
    ByteArrayOutputStream sent = new ByteArrayOutputStream();
    for (int from = 0; from < input.length && !framing.done(); ) {
      int length = Math.min(input.length - from, 1 + random.nextInt(48));
      int taken;
      try {
        taken = framing.scan(input, from, length);
      } catch (MalformedHttpException e) {
        return;  // refused by the framing: never reaches the re-chunker
      }
      accepted.write(input, from, taken);
      Rechunker.Output out = rechunker.rechunk(input, from, taken);
      sent.write(out.bytes(), out.offset(), out.length());
      from += taken;
    }
    if (!framing.done()) {
      return;
    }
    assertThat(decode(sent.toByteArray())).as("re-chunked")
        .isEqualTo(decode(accepted.toByteArray()));
  }

  /** The data and the trailer section of a whole chunked body (it must be well framed). */
  private static String decode(byte[] body) throws MalformedHttpException {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    ChunkedScanner scanner = ChunkedScanner.ofResponse((bytes, offset, length) ->
        data.write(bytes, offset, length));
    int used = scanner.scanToTrailer(body, 0, body.length);
    assertThat(scanner.scan(body, used, body.length - used)).isEqualTo(body.length - used);
    assertThat(scanner.done()).isTrue();
    return data.toString(StandardCharsets.ISO_8859_1) + "|"
        + new String(body, used, body.length - used, StandardCharsets.ISO_8859_1);
  }
}
