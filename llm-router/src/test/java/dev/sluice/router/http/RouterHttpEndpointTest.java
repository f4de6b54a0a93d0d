package dev.sluice.router.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RouterHttpEndpointTest {

  private static final byte[] BODY =
      "{\"model\":\"m\",\"prompt\":\"hello\"}".getBytes(StandardCharsets.UTF_8);

  @Test
  void wholeBodyGivesModelAndPrompt() {
    var body = RouterHttpEndpoint.body(BODY, Optional.empty()).orElseThrow();

    assertThat(body.truncated()).isFalse();
    assertThat(body.routingKeys().model()).hasValue("m");
    assertThat(body.routingKeys().prompt()).hasValue("hello");
  }

  @Test
  void truncatedHeaderMeansNoRoutingKeyEvenIfTheJsonParses() {
    var body = RouterHttpEndpoint.body(BODY, Optional.of(BODY.length + "/9000")).orElseThrow();

    assertThat(body.truncated()).isTrue();
    assertThat(body.truncationHeader()).isEqualTo(BODY.length + "/9000");
    assertThat(body.routingKeys().model()).isEmpty();
    assertThat(body.routingKeys().prompt()).isEmpty();
  }

  @Test
  void malformedTruncatedHeaderStillCountsAsCut() {
    assertThat(RouterHttpEndpoint.body(BODY, Optional.of("garbage")).orElseThrow().truncated())
        .isTrue();
  }

  @Test
  void emptyBodyIsNoBody() {
    assertThat(RouterHttpEndpoint.body(new byte[0], Optional.empty())).isEmpty();
  }
}
