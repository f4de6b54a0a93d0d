package dev.sluice.replica.http;

import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.core.openai.SseFrames;
import dev.sluice.core.openai.StopStrings;
import dev.sluice.replica.engine.Engine;
import dev.sluice.replica.engine.GenerationRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.IntFunction;
import org.apache.pekko.NotUsed;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * The answer to one request from the engine tokens of its {@code n} choices: each choice's text
 * is cut before its first stop string and its tokens counted (the stop string's last token
 * included, as vLLM counts), then framed as SSE or gathered into the whole JSON answer. An
 * answer holds the state of one response: its sources are materialized once. The replica's
 * endpoint and its side of the relayed path both answer with it, so the two give the same bytes.
 */
final class CompletionAnswer {

  private final CompletionRequest request;
  private final String id;
  private final long created;
  private final SseFrames frames;
  private final IntFunction<Source<String, NotUsed>> generate;
  private final List<ChoiceText> choices;

  /**
   * The answer to {@code request} from {@code engine}: each of its {@code n} choices is its own
   * generation with its index; the answer's id is made of the request id.
   */
  static CompletionAnswer of(CompletionRequest request, String requestId, Engine engine) {
    String id = (request.kind() == CompletionRequest.Kind.CHAT ? "chatcmpl-" : "cmpl-")
        + requestId;
    return new CompletionAnswer(request, id, System.currentTimeMillis() / 1000,
        choice -> engine.generate(new GenerationRequest(requestId, request.prompt(),
            request.maxTokens(), request.seed(), choice, request.stop())));
  }

  /** {@code generate} gives the engine's tokens of choice {@code i}. */
  CompletionAnswer(CompletionRequest request, String id, long created,
      IntFunction<Source<String, NotUsed>> generate) {
    this.request = request;
    this.id = id;
    this.created = created;
    this.frames = new SseFrames(request, id, created);
    this.generate = generate;
    StopStrings stop = new StopStrings(request.stop());
    List<ChoiceText> texts = new ArrayList<>(request.n());
    for (int i = 0; i < request.n(); i++) {
      texts.add(new ChoiceText(i, stop.isEmpty() ? null : stop.matcher()));
    }
    this.choices = List.copyOf(texts);
  }

  /**
   * The SSE body: the role frames (chat), each choice's text frames and its own finish frame
   * (several choices interleave, each frame naming its {@code index}), the usage frame of all
   * choices if asked for, {@code [DONE]}.
   */
  Source<ByteString, NotUsed> stream() {
    Source<ByteString, NotUsed> head = Source.empty();
    if (request.kind() == CompletionRequest.Kind.CHAT) {
      List<ByteString> roles = new ArrayList<>(choices.size());
      for (ChoiceText choice : choices) {
        roles.add(frames.roleFrame(choice.index));
      }
      head = Source.from(roles);
    }
    Source<ByteString, NotUsed> body = choices.size() == 1 ? frames(choices.get(0))
        : Source.from(choices).flatMapMerge(choices.size(), this::frames);
    Source<ByteString, NotUsed> tail = request.includeUsage()
        ? Source.lazySingle(() -> frames.usageFrame(completionTokens()))
            .concat(Source.single(SseFrames.DONE))
        : Source.single(SseFrames.DONE);
    // concatLazy, here and below: concat pulls its second source before the first has ended,
    // which would count the tokens and read the finish reasons before there are any.
    return head.concat(body).concatLazy(tail);
  }

  private Source<ByteString, NotUsed> frames(ChoiceText choice) {
    return choice.text(generate.apply(choice.index))
        .map(text -> frames.tokenFrame(choice.index, text))
        .concatLazy(Source.lazySingle(
            () -> frames.finishFrame(choice.index, choice.finishReason())));
  }

  /** The whole answer's JSON once every choice has ended; one failing fails them all. */
  CompletionStage<String> whole(Materializer materializer) {
    return Source.from(choices)
        .flatMapMerge(choices.size(), choice -> choice.text(generate.apply(choice.index))
            .fold(new StringBuilder(), StringBuilder::append)
            .map(text -> Pair.create(choice.index, new SseFrames.Choice(text.toString(),
                choice.finishReason(), choice.tokens))))
        .runWith(Sink.seq(), materializer)
        .thenApplyAsync(ended -> {  // an executor: Scala's adapter would start a thread
          List<Pair<Integer, SseFrames.Choice>> ordered = new ArrayList<>(ended);
          ordered.sort(Comparator.comparing(Pair::first));
          return frames.fullResponse(id, created, ordered.stream().map(Pair::second).toList());
        }, Runnable::run);
  }

  private int completionTokens() {
    int tokens = 0;
    for (ChoiceText choice : choices) {
      tokens += choice.tokens;
    }
    return tokens;
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
