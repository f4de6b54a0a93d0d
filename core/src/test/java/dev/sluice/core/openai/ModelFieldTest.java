package dev.sluice.core.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ModelFieldTest {

  private static java.util.Optional<String> find(String body) {
    return ModelField.find(body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void findsTheTopLevelModelWhereverItIs() {
    assertThat(find("{\"model\":\"a\",\"messages\":[]}")).hasValue("a");
    assertThat(find("{\"messages\":[{\"role\":\"user\",\"content\":\"x\",\"model\":\"inner\"}],"
        + "\"stream\":true,\"model\":\"b\"}")).hasValue("b");
    assertThat(find("{\"model\":\"caf\\u00e9\"}")).hasValue("café");
  }

  @Test
  void hasNoneForAnythingElse() {
    assertThat(find("")).isEmpty();
    assertThat(find("[\"model\"]")).isEmpty();
    assertThat(find("{\"messages\":[]}")).isEmpty();
    assertThat(find("{\"model\":7}")).isEmpty();
    assertThat(find("{\"model\":{\"id\":\"a\"}}")).isEmpty();
    assertThat(find("{\"model\":\"a\",\"x\":")).as("truncated").isEmpty();
    assertThat(find("{\"model\":\"a\"")).as("unterminated").isEmpty();
    assertThat(find("not json")).isEmpty();
  }

  @Test
  void aModelNamedTwiceIsNone() {
    assertThat(find("{\"model\":\"a\",\"model\":\"b\"}")).isEmpty();
    assertThat(find("{\"model\":\"a\",\"model\":\"a\"}")).isEmpty();
  }

  @Test
  void aModelLongerThanAnyServedIsKeptOneCharacterOver() {
    String huge = "m".repeat(100_000);

    assertThat(find("{\"model\":\"" + huge + "\"}")).hasValueSatisfying(model ->
        assertThat(model).hasSize(ModelField.MAX_CHARS + 1));
    assertThat(find("{\"model\":\"" + "m".repeat(ModelField.MAX_CHARS) + "\"}"))
        .hasValueSatisfying(model -> assertThat(model).hasSize(ModelField.MAX_CHARS));
  }
}
