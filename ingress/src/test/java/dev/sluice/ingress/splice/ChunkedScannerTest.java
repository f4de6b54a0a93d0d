package dev.sluice.ingress.splice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ChunkedScannerTest {

  private static final String BODY =
      "5\r\nhello\r\n1a;name=value\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n\r\n";

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void findsTheEndInOnePiece() throws Exception {
    byte[] data = bytes(BODY + "NEXT");
    ChunkedScanner scanner = new ChunkedScanner();

    int consumed = scanner.scan(data, 0, data.length);

    assertThat(scanner.done()).isTrue();
    assertThat(consumed).isEqualTo(BODY.length());
  }

  @Test
  void findsTheSameEndFedOneByteAtATime() throws Exception {
    byte[] data = bytes(BODY);
    ChunkedScanner scanner = new ChunkedScanner();
    int consumed = 0;
    for (int i = 0; i < data.length; i++) {
      assertThat(scanner.done()).isFalse();
      consumed += scanner.scan(data, i, 1);
    }
    assertThat(scanner.done()).isTrue();
    assertThat(consumed).isEqualTo(data.length);
  }

  @Test
  void skipsTrailerFields() throws Exception {
    String body = "3\r\nabc\r\n0\r\nx-trailer: 1\r\nx-other: 2\r\n\r\n";
    byte[] data = bytes(body + "tail");
    ChunkedScanner scanner = new ChunkedScanner();

    assertThat(scanner.scan(data, 0, data.length)).isEqualTo(body.length());
    assertThat(scanner.done()).isTrue();
  }

  @Test
  void notDoneBeforeTheLastChunk() throws Exception {
    byte[] data = bytes("5\r\nhello\r\n");
    ChunkedScanner scanner = new ChunkedScanner();

    assertThat(scanner.scan(data, 0, data.length)).isEqualTo(data.length);
    assertThat(scanner.done()).isFalse();
  }

  @Test
  void rejectsMalformedFraming() {
    assertThatThrownBy(() -> new ChunkedScanner().scan(bytes("zz\r\n"), 0, 4))
        .isInstanceOf(MalformedHttpException.class);
    assertThatThrownBy(() -> new ChunkedScanner().scan(bytes("2\r\nabX\n"), 0, 7))
        .isInstanceOf(MalformedHttpException.class);
    byte[] huge = bytes("1234567890abcdef0\r\n");
    assertThatThrownBy(() -> new ChunkedScanner().scan(huge, 0, huge.length))
        .isInstanceOf(MalformedHttpException.class);
  }
}
