package dev.sluice.ingress.splice;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ingress.edge.Answer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponseRendererTest {

  @Test
  void theAnswerToAHeadKeepsTheContentLengthAndLeavesTheBodyOut() {
    Answer answer = Answer.json(200, "{\"status\":\"ok\"}");
    String withBody = new String(ResponseRenderer.render(answer, false, true),
        StandardCharsets.ISO_8859_1);
    String head = new String(ResponseRenderer.render(answer, false, false),
        StandardCharsets.ISO_8859_1);

    assertThat(withBody).isEqualTo(head + "{\"status\":\"ok\"}");
    assertThat(head).startsWith("HTTP/1.1 200 OK\r\n").contains("Content-Length: 15\r\n")
        .endsWith("\r\n\r\n");
  }
}
