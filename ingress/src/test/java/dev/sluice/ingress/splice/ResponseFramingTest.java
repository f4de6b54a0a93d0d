package dev.sluice.ingress.splice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponseFramingTest {

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void headSplitAcrossReadsThenALengthDelimitedBody() throws Exception {
    ResponseFraming framing = new ResponseFraming(4096);
    byte[] first = bytes("HTTP/1.1 200 OK\r\nContent-Le");
    byte[] second = bytes("ngth: 5\r\n\r\nhel");
    byte[] third = bytes("loEXTRA");

    assertThat(framing.acceptHead(first, 0, first.length)).isEqualTo(first.length);
    assertThat(framing.headComplete()).isFalse();
    int taken = framing.acceptHead(second, 0, second.length);
    assertThat(framing.headComplete()).isTrue();
    assertThat(taken).isEqualTo(second.length - 3);
    assertThat(framing.body()).isEqualTo(ResponseFraming.Body.LENGTH);
    assertThat(framing.acceptBody(second, taken, 3)).isEqualTo(3);
    assertThat(framing.bodyDone()).isFalse();
    assertThat(framing.acceptBody(third, 0, third.length)).isEqualTo(2);
    assertThat(framing.bodyDone()).isTrue();
    assertThat(new String(framing.rawHead(), StandardCharsets.ISO_8859_1))
        .isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
  }

  @Test
  void aBodyThatCameWithTheHeadIsNotCopiedWithIt() throws Exception {
    ResponseFraming framing = new ResponseFraming(64 * 1024);
    String head = "HTTP/1.1 200 OK\r\nContent-Length: 40000\r\n\r\n";
    byte[] read = bytes(head + "x".repeat(40_000));

    assertThat(framing.acceptHead(read, 0, read.length)).isEqualTo(head.length());
    assertThat(framing.body()).isEqualTo(ResponseFraming.Body.LENGTH);
    assertThat(framing.headCapacity()).isLessThanOrEqualTo(512);
    assertThat(framing.acceptBody(read, head.length(), 40_000)).isEqualTo(40_000);
    assertThat(framing.bodyDone()).isTrue();
  }

  @Test
  void aHeadWhoseBlankLineIsSplitAcrossReadsEndsWhereItShould() throws Exception {
    for (int cut = 1; cut <= 4; cut++) {
      ResponseFraming framing = new ResponseFraming(4096);
      String head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n";
      byte[] first = bytes(head.substring(0, head.length() - cut));
      byte[] second = bytes(head.substring(head.length() - cut) + "hi");

      assertThat(framing.acceptHead(first, 0, first.length)).isEqualTo(first.length);
      assertThat(framing.headComplete()).as("cut %d", cut).isFalse();
      assertThat(framing.acceptHead(second, 0, second.length)).as("cut %d", cut).isEqualTo(cut);
      assertThat(new String(framing.rawHead(), StandardCharsets.ISO_8859_1)).isEqualTo(head);
    }
  }

  @Test
  void chunkedWinsOverContentLengthAndNoLengthMeansUntilClose() throws Exception {
    ResponseFraming chunked = new ResponseFraming(4096);
    byte[] head = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    chunked.acceptHead(head, 0, head.length);
    assertThat(chunked.body()).isEqualTo(ResponseFraming.Body.CHUNKED);
    byte[] body = bytes("0\r\n\r\n");
    assertThat(chunked.acceptBody(body, 0, body.length)).isEqualTo(5);
    assertThat(chunked.bodyDone()).isTrue();

    ResponseFraming untilClose = new ResponseFraming(4096);
    byte[] bare = bytes("HTTP/1.1 200 OK\r\n\r\nabc");
    untilClose.acceptHead(bare, 0, bare.length);
    assertThat(untilClose.body()).isEqualTo(ResponseFraming.Body.UNTIL_CLOSE);
    assertThat(untilClose.bodyDone()).isFalse();
  }

  @Test
  void noContentHasNoBodyAndInformationalIsFollowedByAnotherHead() throws Exception {
    ResponseFraming framing = new ResponseFraming(4096);
    byte[] head = bytes("HTTP/1.1 204 No Content\r\n\r\n");
    framing.acceptHead(head, 0, head.length);
    assertThat(framing.body()).isEqualTo(ResponseFraming.Body.NONE);
    assertThat(framing.bodyDone()).isTrue();

    ResponseFraming early = new ResponseFraming(4096);
    byte[] hints = bytes("HTTP/1.1 103 Early Hints\r\n\r\n");
    early.acceptHead(hints, 0, hints.length);
    assertThat(early.informational()).isTrue();
  }

  @Test
  void rejectsAnOversizedHeadAndAGarbledStatus() {
    ResponseFraming framing = new ResponseFraming(1024);
    byte[] big = bytes("HTTP/1.1 200 OK\r\nx: " + "a".repeat(2000));
    assertThatThrownBy(() -> framing.acceptHead(big, 0, big.length))
        .isInstanceOf(MalformedHttpException.class);
    byte[] garbled = bytes("SSH-2.0-OpenSSH\r\n\r\n");
    assertThatThrownBy(() -> new ResponseFraming(1024).acceptHead(garbled, 0, garbled.length))
        .isInstanceOf(MalformedHttpException.class);
  }
}
