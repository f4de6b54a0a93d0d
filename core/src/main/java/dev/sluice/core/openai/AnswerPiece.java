package dev.sluice.core.openai;

import java.util.Objects;

/**
 * A piece of an answer as the engine produces it: choice {@code choice}'s next text, or its end
 * (with why it ended and the tokens it generated). {@link AnswerFramer} turns pieces into what the
 * client reads; on the relayed path they cross from the replica to the ingress unframed.
 *
 * @param finishReason null for a piece of text; why the choice ended for its last piece
 * @param tokens the tokens the choice generated (its last piece only, else 0)
 */
public record AnswerPiece(int choice, String text, String finishReason, int tokens) {

  public AnswerPiece {
    Objects.requireNonNull(text, "text");
    if (choice < 0) {
      throw new IllegalArgumentException("choice: " + choice + " (expected: >= 0)");
    }
  }

  /** Choice {@code choice}'s next text. */
  public static AnswerPiece text(int choice, String text) {
    return new AnswerPiece(choice, text, null, 0);
  }

  /** Choice {@code choice}'s end: why, and how many tokens it generated. */
  public static AnswerPiece end(int choice, String finishReason, int tokens) {
    return new AnswerPiece(choice, "", Objects.requireNonNull(finishReason, "finishReason"),
        tokens);
  }

  public boolean isEnd() {
    return finishReason != null;
  }
}
