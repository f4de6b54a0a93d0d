package dev.sluice.core.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StopStringsTest {

  /** What a stream shows, piece by piece (empty pieces left out), for {@code tokens}. */
  private static List<String> shown(List<String> stops, String... tokens) {
    StopStrings.Matcher matcher = new StopStrings(stops).matcher();
    List<String> pieces = new ArrayList<>();
    for (String token : tokens) {
      String piece = matcher.accept(token);
      if (!piece.isEmpty()) {
        pieces.add(piece);
      }
      if (matcher.stopped()) {
        return pieces;
      }
    }
    String rest = matcher.flush();
    if (!rest.isEmpty()) {
      pieces.add(rest);
    }
    return pieces;
  }

  @Test
  void textEndsBeforeTheStopStringWhichIsNotShown() {
    assertThat(shown(List.of("gate"), "the", " sluice", " gate", " and"))
        .containsExactly("the", " sluice", " ");
  }

  @Test
  void aStopStringAcrossTokensIsFoundAndItsStartHeldBackMeanwhile() {
    StopStrings.Matcher matcher = new StopStrings(List.of("r fl")).matcher();

    assertThat(matcher.accept("the")).isEqualTo("the");
    assertThat(matcher.accept(" river")).isEqualTo(" rive");
    assertThat(matcher.stopped()).isFalse();
    assertThat(matcher.accept(" flows")).isEqualTo("");
    assertThat(matcher.stopped()).isTrue();
    assertThat(matcher.accept(" more")).isEmpty();
  }

  @Test
  void heldBackTextThatDoesNotBecomeAStopStringIsShownWithTheNextToken() {
    assertThat(shown(List.of("sluice gate"), "the", " sluice", " and"))
        .containsExactly("the", " ", "sluice and");
  }

  @Test
  void heldBackTextIsShownWhenTheTokensRunOut() {
    assertThat(shown(List.of("sluice gate"), "the", " sluice")).containsExactly("the", " ",
        "sluice");
  }

  @Test
  void theEarliestOfSeveralStopStringsEndsTheText() {
    assertThat(shown(List.of("deep", "cold"), "cold", " deep")).isEmpty();
    assertThat(shown(List.of("deep", "ld"), "a cold deep")).containsExactly("a co");
  }

  @Test
  void withoutStopStringsEveryTokenIsShownAsItComes() {
    StopStrings none = new StopStrings(List.of());

    assertThat(none.isEmpty()).isTrue();
    assertThat(shown(List.of(), "a", " b")).containsExactly("a", " b");
  }

  @Test
  void anEmptyStopStringIsRefused() {
    assertThatThrownBy(() -> new StopStrings(List.of("a", "")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void eachMatcherStartsAfresh() {
    StopStrings stops = new StopStrings(List.of("x"));
    StopStrings.Matcher first = stops.matcher();
    first.accept("ax");

    assertThat(first.stopped()).isTrue();
    assertThat(stops.matcher().stopped()).isFalse();
  }
}
