package dev.sluice.ingress.splice;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ingress.edge.HeaderField;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a replica gets of a client's request: nothing about the client's connection or keys. */
class ExchangeTest {

  @Test
  void theUpstreamRequestCarriesOurFramingIdAndTokenNotTheClients() throws Exception {
    String body = "{\"prompt\":\"x\"}";
    RequestHead head = RequestHeadTest.parse("POST /v1/completions HTTP/1.1\r\nHost: client\r\n"
        + "Authorization: Bearer client-key\r\nConnection: keep-alive, X-Private\r\n"
        + "X-Private: secret\r\nKeep-Alive: 5\r\nTE: trailers\r\nX-Request-Id: id-1\r\n"
        + "X-Session-Id: s-1\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + body.length() + "\r\n\r\n");
    SpliceRequest request = head.request().withBody(body.getBytes(StandardCharsets.UTF_8));
    Decision.Forward target = new Decision.Forward("10.0.0.7", 30001, "llm#sim#aaaaaaaa",
        List.of(new HeaderField("authorization", "Bearer cluster-token")),
        Decision.Lease.NONE);

    String sent = new String(Exchange.upstreamRequest(request, target),
        StandardCharsets.ISO_8859_1);

    assertThat(sent).startsWith("POST /v1/completions HTTP/1.1\r\nhost: 10.0.0.7:30001\r\n")
        .endsWith("content-length: " + body.length() + "\r\n\r\n" + body)
        .contains("X-Session-Id: s-1\r\n", "Content-Type: application/json\r\n",
            "x-request-id: id-1\r\n", "authorization: Bearer cluster-token\r\n")
        .doesNotContain("client-key", "X-Private", "secret", "Keep-Alive", "TE:", "Host: client",
            "Connection");
    assertThat(sent.split("(?i)content-length", -1)).hasSize(2);
  }
}
