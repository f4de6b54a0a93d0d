package dev.sluice.ingress.splice;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Any bytes as a replica's answer on a kept-alive connection: only {@link MalformedHttpException}
 * may come out, and however the bytes arrive (whole, byte by byte, in random pieces) the framing
 * agrees on the heads it saw, how the body is delimited and the byte where the answer ends, or
 * refuses them all. A small head limit lets the fuzzer reach it. (Two bugs it found, with their
 * seeds: a head just over the limit was taken or refused depending on how it was split,
 * {@code head-just-over-the-limit}; a status below 100 was taken as informational,
 * {@code status-below-100}.)
 *
 * <p>Seeds: {@code ResponseFramingFuzzTestInputs/} beside this class in
 * {@code src/test/resources}.
 */
class ResponseFramingFuzzTest {

  /** Above the framing's initial 512-byte buffer, so that the limit is what caps a head. */
  private static final int MAX_HEAD_BYTES = 600;

  /**
   * What reading an answer came to: refused, or the statuses of its heads (1xx first), its body
   * kind, the body bytes counted, where it ended (-1: not yet, or only at the close) and the
   * length of its longest head.
   */
  record Outcome(boolean refused, List<Integer> statuses, ResponseFraming.Body body,
      long bodyBytes, int end, int longestHead) {
    static final Outcome REFUSED = new Outcome(true, List.of(), null, 0, -1, 0);
  }

  @FuzzTest(maxDuration = "20s")
  void anySplitFramesTheAnswerAlike(byte[] input) {
    SplittableRandom random = new SplittableRandom(Arrays.hashCode(input));

    Outcome whole = read(input, input.length, random);
    assertSameAs(whole, read(input, 1, random), "byte by byte");
    assertSameAs(whole, read(input, 0, random), "random pieces");
    assertThat(whole.longestHead()).isLessThanOrEqualTo(MAX_HEAD_BYTES);

    if (whole.end() >= 0) {
      assertThat(whole.end()).isLessThanOrEqualTo(input.length);
      assertThat(whole.statuses()).isNotEmpty()
          .allSatisfy(status -> assertThat(status).isBetween(100, 999)
              .isNotEqualTo(101));
      int last = whole.statuses().get(whole.statuses().size() - 1);
      assertThat(last).isGreaterThanOrEqualTo(200);
      assertThat(whole.body()).isNotEqualTo(ResponseFraming.Body.UNTIL_CLOSE);
      if (last == 204 || last == 304) {
        assertThat(whole.body()).isEqualTo(ResponseFraming.Body.NONE);
        assertThat(whole.bodyBytes()).isZero();
      }
    }
  }

  private static void assertSameAs(Outcome whole, Outcome split, String how) {
    assertThat(split).as(how).isEqualTo(whole);
  }

  /**
   * Reads {@code bytes} in pieces of {@code piece} bytes (0: random sizes) as the upstream
   * connection does: head bytes to the framing until a head is complete, a 1xx head resets it,
   * then body bytes until the body is done.
   */
  private static Outcome read(byte[] bytes, int piece, SplittableRandom random) {
    ResponseFraming framing = new ResponseFraming(MAX_HEAD_BYTES);
    List<Integer> statuses = new ArrayList<>();
    long bodyBytes = 0;
    int headStart = 0;
    int longestHead = 0;
    try {
      for (int from = 0; from < bytes.length; ) {
        int to = Math.min(bytes.length, from + (piece > 0 ? piece : 1 + random.nextInt(32)));
        int position = from;
        while (position < to) {
          if (!framing.headComplete()) {
            int taken = framing.acceptHead(bytes, position, to - position);
            assertThat(taken).isBetween(0, to - position);
            position += taken;
            if (!framing.headComplete()) {
              assertThat(position).as("an incomplete head takes every byte").isEqualTo(to);
              break;
            }
            statuses.add(framing.status());
            longestHead = Math.max(longestHead, position - headStart);
            headStart = position;
            if (framing.informational()) {
              framing.reset();
              continue;
            }
          }
          int body = framing.acceptBody(bytes, position, to - position);
          assertThat(body).isBetween(0, to - position);
          bodyBytes += body;
          position += body;
          if (framing.bodyDone()) {
            return new Outcome(false, statuses, framing.body(), bodyBytes, position, longestHead);
          }
          assertThat(position).as("an unfinished body takes every byte").isEqualTo(to);
        }
        from = to;
      }
    } catch (MalformedHttpException e) {
      assertThat(e.getMessage()).isNotBlank();
      return Outcome.REFUSED;
    }
    return new Outcome(false, statuses, framing.headComplete() ? framing.body() : null, bodyBytes,
        -1, longestHead);
  }
}
