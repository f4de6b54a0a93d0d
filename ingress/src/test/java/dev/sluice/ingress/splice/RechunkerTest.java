package dev.sluice.ingress.splice;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Chunks read together leave as one; what the client decodes is what the replica sent. */
class RechunkerTest {

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String text(Rechunker.Output out) {
    return new String(out.bytes(), out.offset(), out.length(), StandardCharsets.ISO_8859_1);
  }

  /** Chunks read together leave as one (extensions dropped); trailers pass after our last chunk. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      chunks read together  | 5~hello~1;ext=1~ ~5~world~0~~ | b~hello world~0~~
      a trailer section     | 2~ab~2~cd~0~x-checksum: 1~~   | 4~abcd~0~x-checksum: 1~~
      """)
  void aReadLeavesAsOneChunk(String what, String read, String sent) throws Exception {
    byte[] bytes = ascii(read.replace("~", "\r\n"));

    Rechunker.Output out = new Rechunker().rechunk(bytes, 0, bytes.length);

    assertThat(text(out)).isEqualTo(sent.replace("~", "\r\n"));
  }

  @Test
  void aReadThatIsOneWholeChunkPassesUncopied() throws Exception {
    Rechunker rechunker = new Rechunker();
    byte[] first = ascii("xx6\r\ntoken1\r\n");
    byte[] last = ascii("0\r\nx-trailer: yes\r\n\r\n");

    Rechunker.Output out = rechunker.rechunk(first, 2, first.length - 2);
    Rechunker.Output end = rechunker.rechunk(last, 0, last.length);

    assertThat(out.bytes()).isSameAs(first);
    assertThat(out.offset()).isEqualTo(2);
    assertThat(text(out)).isEqualTo("6\r\ntoken1\r\n");
    assertThat(end.bytes()).isSameAs(last);
  }


  /** The merged chunk's size line is the total in hex, at every number of digits. */
  @ParameterizedTest(name = "{0} bytes")
  @ValueSource(ints = {2, 15, 16, 255, 256, 4095, 4096, 65535, 65536})
  void theMergedSizeLineIsTheTotalInHex(int total) throws Exception {
    int first = total / 2;
    String a = "a".repeat(first);
    String b = "b".repeat(total - first);
    byte[] bytes = ascii(Integer.toHexString(first) + "\r\n" + a + "\r\n"
        + Integer.toHexString(total - first) + "\r\n" + b + "\r\n");

    Rechunker.Output out = new Rechunker().rechunk(bytes, 0, bytes.length);

    assertThat(text(out)).isEqualTo(Integer.toHexString(total) + "\r\n" + a + b + "\r\n");
  }

  /** Streams of one loop merge into the loop's one buffer: no array per read. */
  @Test
  void mergesOfOneLoopReuseItsScratch() throws Exception {
    Rechunker.Scratch scratch = new Rechunker.Scratch();
    Rechunker one = new Rechunker(scratch);
    Rechunker two = new Rechunker(scratch);
    byte[] read = ascii("3\r\nabc\r\n2\r\nde\r\n");
    byte[] other = ascii("1\r\nx\r\n1\r\ny\r\n");

    Rechunker.Output first = one.rechunk(read, 0, read.length);
    String firstSent = text(first);
    Rechunker.Output second = two.rechunk(other, 0, other.length);
    String secondSent = text(second);
    Rechunker.Output third = one.rechunk(read, 0, read.length);

    assertThat(firstSent).isEqualTo("5\r\nabcde\r\n");
    assertThat(secondSent).isEqualTo("2\r\nxy\r\n");
    assertThat(text(third)).isEqualTo("5\r\nabcde\r\n");
    assertThat(second.bytes()).isSameAs(first.bytes());
    assertThat(third.bytes()).isSameAs(first.bytes());
  }

  /** Any cut of the replica's bytes into reads: the client decodes the same data and trailer. */
  @Test
  void everyWayOfSplittingTheReadsDecodesToTheSameBody() throws Exception {
    Random random = new Random(7);
    for (int trial = 0; trial < 500; trial++) {
      StringBuilder data = new StringBuilder();
      StringBuilder wire = new StringBuilder();
      int chunks = 1 + random.nextInt(12);
      for (int i = 0; i < chunks; i++) {
        String piece = "data: " + "x".repeat(random.nextInt(40)) + i + "\n\n";
        data.append(piece);
        wire.append(Integer.toHexString(piece.length()))
            .append(random.nextBoolean() ? ";e=" + i : "").append("\r\n").append(piece)
            .append("\r\n");
      }
      String trailer = random.nextBoolean() ? "x-t: " + trial + "\r\n" : "";
      wire.append("0\r\n").append(trailer).append("\r\n");
      byte[] bytes = ascii(wire.toString());

      Rechunker rechunker = new Rechunker();
      ByteArrayOutputStream sent = new ByteArrayOutputStream();
      int at = 0;
      while (at < bytes.length) {
        int length = Math.min(bytes.length - at, 1 + random.nextInt(60));
        Rechunker.Output out = rechunker.rechunk(bytes, at, length);
        sent.write(out.bytes(), out.offset(), out.length());
        at += length;
      }

      List<String> decoded = decode(sent.toByteArray());
      assertThat(decoded.get(0)).as("trial %d: %s", trial, wire).isEqualTo(data.toString());
      assertThat(decoded.get(1)).as("trial %d", trial).isEqualTo(trailer);
    }
  }

  /** Data and trailer section of a chunked body, checked strictly by the splice's scanner. */
  private static List<String> decode(byte[] body) throws Exception {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    ChunkedScanner scanner = ChunkedScanner.ofResponse((bytes, offset, length) ->
        data.write(bytes, offset, length));
    int used = scanner.scanToTrailer(body, 0, body.length);
    int rest = body.length - used;
    assertThat(scanner.scan(body, used, rest)).isEqualTo(rest);
    assertThat(scanner.done()).isTrue();
    String trailer = new String(body, used, rest - 2, StandardCharsets.ISO_8859_1);
    List<String> parts = new ArrayList<>();
    parts.add(data.toString(StandardCharsets.ISO_8859_1));
    parts.add(trailer);
    return parts;
  }
}
