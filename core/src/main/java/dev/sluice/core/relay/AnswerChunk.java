package dev.sluice.core.relay;

import dev.sluice.core.openai.AnswerPiece;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.List;

/**
 * One element of the relayed path's answer stream: the pieces of the answer (text of its choices,
 * their ends) produced since the last element was sent, unframed; the ingress frames them as the
 * replica's endpoint would. A replica that produces faster than the ingress reads sends many
 * pieces per message instead of one message each, so Artery's queues and the stream ref's demand
 * window hold messages, not tokens, at any concurrency.
 */
public record AnswerChunk(List<AnswerPiece> pieces) implements ClusterMessage {

  /** At most this many characters of text per element (a longer piece travels alone). */
  public static final int MAX_TEXT = 16 * 1024;

  public AnswerChunk {
    pieces = List.copyOf(pieces);
  }
}
