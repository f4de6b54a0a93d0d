package dev.sluice.core.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReasonPhrasesTest {

  @Test
  void everyStatusAnEdgeAnswersHasItsReasonPhrase() {
    for (ApiError.Code code : ApiError.Code.values()) {
      assertThat(ReasonPhrases.of(code.status())).as(code.name()).isNotEqualTo("Status");
    }
    assertThat(ReasonPhrases.of(200)).isEqualTo("OK");
    assertThat(ReasonPhrases.of(299)).isEqualTo("Status");
  }
}
