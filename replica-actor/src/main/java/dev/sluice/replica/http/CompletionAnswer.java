package dev.sluice.replica.http;

import dev.sluice.core.openai.AnswerFramer;
import dev.sluice.core.openai.AnswerPiece;
import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.core.openai.StopStrings;
import dev.sluice.replica.engine.Engine;
import dev.sluice.replica.engine.GenerationRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.IntFunction;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * The answer to one request from the engine tokens of its {@code n} choices, as
 * {@link AnswerPiece}s: each choice's text is cut before its first stop string and its tokens
 * counted (the stop string's last token included, as vLLM counts). The replica's endpoint frames
 * the pieces itself ({@link #stream}, {@link #whole}); its side of the relayed path sends them to
 * the ingress, which frames them with the same {@link AnswerFramer}. An answer holds the state of
 * one response: its sources are materialized once.
 */
final class CompletionAnswer {

  private final CompletionRequest request;
  private final AnswerFramer framer;
  private final IntFunction<Source<String, NotUsed>> generate;
  private final List<ChoiceText> choices;

  /**
   * The answer to {@code request} from {@code engine}: each of its {@code n} choices is its own
   * generation with its index; the answer's id is made of the request id.
   */
  static CompletionAnswer of(CompletionRequest request, String requestId, Engine engine) {
    return new CompletionAnswer(request, AnswerFramer.answerId(request, requestId),
        System.currentTimeMillis() / 1000,
        choice -> engine.generate(new GenerationRequest(requestId, request.prompt(),
            request.maxTokens(), request.seed(), choice, request.stop())));
  }

  /** {@code generate} gives the engine's tokens of choice {@code i}. */
  CompletionAnswer(CompletionRequest request, String id, long created,
      IntFunction<Source<String, NotUsed>> generate) {
    this.request = request;
    this.framer = new AnswerFramer(request, id, created);
    this.generate = generate;
    StopStrings stop = new StopStrings(request.stop());
    List<ChoiceText> texts = new ArrayList<>(request.n());
    for (int i = 0; i < request.n(); i++) {
      texts.add(new ChoiceText(i, stop.isEmpty() ? null : stop.matcher()));
    }
    this.choices = List.copyOf(texts);
  }

  /**
   * Every choice's pieces: its text as it comes, then its end. Several choices interleave, each
   * piece naming its choice.
   */
  Source<AnswerPiece, NotUsed> pieces() {
    return choices.size() == 1 ? pieces(choices.get(0))
        : Source.from(choices).flatMapMerge(choices.size(), this::pieces);
  }

  private Source<AnswerPiece, NotUsed> pieces(ChoiceText choice) {
    // concatLazy: concat pulls its second source before the first has ended, which would read
    // the finish reason and count the tokens before there are any.
    return choice.text(generate.apply(choice.index))
        .map(text -> AnswerPiece.text(choice.index, text))
        .concatLazy(Source.lazySingle(
            () -> AnswerPiece.end(choice.index, choice.finishReason(), choice.tokens)));
  }

  /**
   * The SSE body: the role frames (chat), each choice's text frames and its own finish frame,
   * the usage frame of all choices if asked for, {@code [DONE]}.
   */
  Source<ByteString, NotUsed> stream() {
    return framer.stream(pieces().map(framer::frame));
  }

  /** The whole answer's JSON once every choice has ended; one failing fails them all. */
  CompletionStage<String> whole(Materializer materializer) {
    return pieces().runForeach(framer::add, materializer)
        // An executor: Scala's adapter would start a thread.
        .thenApplyAsync(done -> framer.whole(), Runnable::run);
  }

  /**
   * One choice's text and token count. Written by its stream's stages only and read after they
   * have passed on its last element (stream elements and completions order the memory).
   */
  private final class ChoiceText {

    private final int index;
    /** Null without stop strings: every token is shown as it comes. */
    private final StopStrings.Matcher stop;
    private int tokens;

    ChoiceText(int index, StopStrings.Matcher stop) {
      this.index = index;
      this.stop = stop;
    }

    /** The text to show, piece by piece; ends after a stop string. */
    Source<String, NotUsed> text(Source<String, NotUsed> engineTokens) {
      Source<String, NotUsed> shown = engineTokens.map(this::accept);
      if (stop == null) {
        return shown;
      }
      return shown.takeWhile(text -> !stop.stopped(), true)
          .concatLazy(Source.lazySingle(stop::flush))
          .filter(text -> !text.isEmpty());
    }

    private String accept(String token) {
      tokens++;
      return stop == null ? token : stop.accept(token);
    }

    String finishReason() {
      return stop != null && stop.stopped() ? "stop" : request.finishReason();
    }
  }
}
