package dev.sluice.core.openai;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.apache.pekko.util.ByteStringBuilder;

/**
 * Frames the {@link AnswerPiece}s of one answer for the client: as SSE (the role frames of a chat,
 * each piece's frame, the usage of every choice if asked for, {@code [DONE]}) or as the whole
 * JSON answer. The replica's endpoint and the ingress of the relayed path both use it, so both
 * give the same bytes. One framer per answer; its methods are called in the order of the answer's
 * stream (not concurrently).
 */
public final class AnswerFramer {

  private final CompletionRequest request;
  private final SseFrames frames;
  private final String id;
  private final long created;
  private final StringBuilder[] texts;
  private final String[] finishReasons;
  private final int[] tokens;
  private int completionTokens;

  public AnswerFramer(CompletionRequest request, String id, long created) {
    this.request = request;
    this.frames = new SseFrames(request, id, created);
    this.id = id;
    this.created = created;
    this.texts = new StringBuilder[request.n()];
    this.finishReasons = new String[request.n()];
    this.tokens = new int[request.n()];
  }

  /** The answer's id for the request {@code requestId}: {@code chatcmpl-} or {@code cmpl-}. */
  public static String answerId(CompletionRequest request, String requestId) {
    return (request.kind() == CompletionRequest.Kind.CHAT ? "chatcmpl-" : "cmpl-") + requestId;
  }

  /** What a stream starts with: one role frame per choice of a chat, nothing otherwise. */
  public ByteString head() {
    if (request.kind() != CompletionRequest.Kind.CHAT) {
      return ByteString.emptyByteString();
    }
    ByteStringBuilder head = new ByteStringBuilder();
    for (int choice = 0; choice < request.n(); choice++) {
      head.append(frames.roleFrame(choice));
    }
    return head.result();
  }

  /** The SSE frame of {@code piece}: its text, or its choice's finish frame. */
  public ByteString frame(AnswerPiece piece) {
    checkChoice(piece);
    if (piece.isEnd()) {
      completionTokens += piece.tokens();
      return frames.finishFrame(piece.choice(), piece.finishReason());
    }
    return frames.tokenFrame(piece.choice(), piece.text());
  }

  /** The frames of {@code pieces}, in order, as one buffer. */
  public ByteString frames(List<AnswerPiece> pieces) {
    if (pieces.size() == 1) {
      return frame(pieces.get(0));
    }
    ByteStringBuilder out = new ByteStringBuilder();
    for (AnswerPiece piece : pieces) {
      out.append(frame(piece));
    }
    return out.result();
  }

  /**
   * A stream's body around {@code frames}, the pieces as framed by this framer: the head first,
   * the tail once every frame has passed (lazily: the usage is known only then).
   */
  public Source<ByteString, NotUsed> stream(Source<ByteString, NotUsed> frames) {
    ByteString head = head();
    return (head.isEmpty() ? Source.<ByteString>empty() : Source.single(head))
        .concat(frames)
        .concatLazy(Source.lazySingle(this::tail));
  }

  /** What a stream ends with, once every piece was framed: the usage if asked for, [DONE]. */
  public ByteString tail() {
    return request.includeUsage()
        ? frames.usageFrame(completionTokens).concat(SseFrames.DONE) : SseFrames.DONE;
  }

  /** Keeps {@code piece} for the whole answer. */
  public void add(AnswerPiece piece) {
    checkChoice(piece);
    int choice = piece.choice();
    if (piece.isEnd()) {
      finishReasons[choice] = piece.finishReason();
      tokens[choice] = piece.tokens();
    } else {
      if (texts[choice] == null) {
        texts[choice] = new StringBuilder();
      }
      texts[choice].append(piece.text());
    }
  }

  /** The whole JSON answer of the pieces added: every choice in index order, usage summed. */
  public String whole() {
    List<SseFrames.Choice> choices = new ArrayList<>(texts.length);
    for (int choice = 0; choice < texts.length; choice++) {
      if (finishReasons[choice] == null) {
        throw new IllegalStateException("choice " + choice + " of " + id + " did not end");
      }
      choices.add(new SseFrames.Choice(texts[choice] == null ? "" : texts[choice].toString(),
          finishReasons[choice], tokens[choice]));
    }
    return frames.fullResponse(id, created, choices);
  }

  private void checkChoice(AnswerPiece piece) {
    if (piece.choice() >= texts.length) {
      throw new IllegalArgumentException("choice " + piece.choice() + " of an answer with "
          + texts.length + " choice(s)");
    }
  }
}
